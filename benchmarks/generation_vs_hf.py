"""Our cached greedy generation beside Hugging Face's, same weights, measured in one run:
python benchmarks/generation_vs_hf.py (or make bench).
  G1  4 layers, D = 256, vocabulary 100, 8-token prompt, 512 new tokens          (goal: ours / HF <= 0.8)
  G2  GPT-2 small's shape (12 layers, D = 768, vocabulary 50257), random weights,
      8-token prompt, 256 new tokens                                              (goal: ours / HF <= 0.8)
Both: transformers' GPT2LMHeadModel.generate(do_sample=False, use_cache=True) with the weights copied into
ours (anatomy.weights.gpt2_weights.gpt_from_gpt2); the tokens must be identical. Each model's time per
token is printed beside this machine's limits for it: its weights' bytes at the measured memory bandwidth
(a cached step reads every weight once) and its FLOPs at the measured matmul rate (goal for G2: within
1.5x of the larger limit). 2 threads, as the rest of make bench.
"""
from __future__ import annotations

import time

import torch
import transformers
from transformers import GPT2Config, GPT2LMHeadModel

from anatomy.generation.text_generation import generate
from anatomy.weights.gpt2_weights import gpt_from_gpt2
from bench import paired_ratio  # the same alternating timer as P1-P3

transformers.logging.set_verbosity_error()


def memory_bandwidth() -> float:
    """Bytes per second a large copy moves (read + write), best of 5."""
    source, target = torch.randn(64 * 2**20), torch.empty(64 * 2**20)  # 256 MiB each
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        target.copy_(source)
        best = min(best, time.perf_counter() - start)
    return 2 * source.numel() * 4 / best


def matmul_rate() -> float:
    """Floating-point operations per second of a 1024 x 1024 float32 matmul, best of 5."""
    a, b = torch.randn(1024, 1024), torch.randn(1024, 1024)
    a @ b
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - start)
    return 2 * 1024**3 / best


def limits(model, tokens: int, bandwidth: float, rate: float) -> tuple[float, float]:
    """(seconds per token to read the weights, seconds per token to do the FLOPs) for a cached step at
    `tokens` tokens of context: 2 FLOPs per weight of every matrix (the LM head included, embeddings'
    lookups not), plus attention's 4 x layers x tokens x D."""
    config = model.config
    matrices = sum(p.numel() for name, p in model.named_parameters() if p.dim() == 2 and "position" not in name)
    flops = 2 * matrices + 4 * config.num_hidden_layers * tokens * config.hidden_size
    weight_bytes = sum(p.numel() * p.element_size() for p in model.parameters())
    return weight_bytes / bandwidth, flops / rate


def compare(name: str, config: GPT2Config, new_tokens: int, repeats: int, bandwidth: float, rate: float) -> None:
    torch.manual_seed(0)
    theirs = GPT2LMHeadModel(config).eval()
    ours = gpt_from_gpt2(theirs)
    prompt = torch.randint(0, config.vocab_size, (1, 8), generator=torch.Generator().manual_seed(0))
    outputs = {}

    def run_ours():
        outputs["ours"] = generate(ours, prompt, max_new_tokens=new_tokens)

    def run_theirs():
        with torch.no_grad():
            outputs["theirs"] = theirs.generate(prompt, attention_mask=torch.ones_like(prompt), do_sample=False,
                                                use_cache=True, max_new_tokens=new_tokens, min_new_tokens=new_tokens,
                                                pad_token_id=0, eos_token_id=None)

    ratio, ours_s, theirs_s = paired_ratio(run_ours, run_theirs, repeats=repeats)
    identical = torch.equal(outputs["ours"], outputs["theirs"])
    read_s, compute_s = limits(ours, 8 + new_tokens // 2, bandwidth, rate)
    per_token = ours_s / new_tokens
    print(f"{name}  {new_tokens} new tokens: ours {ours_s:.2f} s, HF {theirs_s:.2f} s, ours / HF = {ratio:.2f} "
          f"(goal <= 0.8), token-identical: {identical}")
    print(f"    per token: ours {per_token * 1e3:.2f} ms, HF {theirs_s / new_tokens * 1e3:.2f} ms; limits: weights "
          f"{read_s * 1e3:.2f} ms at the measured bandwidth, FLOPs {compute_s * 1e3:.2f} ms at the measured matmul "
          f"rate; ours = {per_token / max(read_s, compute_s):.1f}x the larger limit")
    assert identical, f"{name}: our greedy tokens differ from Hugging Face's"


if __name__ == "__main__":
    torch.set_num_threads(2)
    bandwidth, rate = memory_bandwidth(), matmul_rate()
    print(f"this machine, 2 threads: memory bandwidth {bandwidth / 1e9:.1f} GB/s (a 256 MiB copy), "
          f"matmul {rate / 1e9:.0f} GFLOP/s (1024 x 1024 float32)")
    compare("G1  4 layers, D = 256", GPT2Config(vocab_size=100, n_positions=1024, n_embd=256, n_layer=4, n_head=4),
            512, 3, bandwidth, rate)
    compare("G2  GPT-2 small's shape", GPT2Config(), 256, 3, bandwidth, rate)
