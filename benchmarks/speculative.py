"""Speculative decoding on a CPU, measured in one run: python benchmarks/speculative.py (or make bench).
  S1  target: notebook 11's character GPT (shipped, anatomy/data/char_gpt); drafts: the bigram counted on
      the same training text, and a 1-layer, 64-wide GPT trained here for 300 steps (a few seconds). 24
      held-out sentence starts of 8 characters, 48 new characters each, greedy (token-identical to the
      target's greedy text, asserted) and sampled at temperature 1; for k = 1..8: the drafts' acceptance
      rate, characters per target call, and the wall-time speed-up over the target writing alone
      (generate with its KV cache)                                       (goal: >= 1.5x at the best k)
Greedy text from this small model degenerates into loops ("the the the"), which a bigram predicts well;
the sampled rows are the harder, more honest case.
2 threads, as the rest of make bench. With a draft that costs almost nothing (the bigram: a table lookup),
the speed-up is bounded by the characters per target call; a GPT draft that costs a good part of the
target's step pays only if its acceptance rate is high (Leviathan et al. 2023, section 3.4).
"""
from __future__ import annotations

import time

import torch

from anatomy.generation.speculative import speculative_generate
from anatomy.generation.text_generation import generate
from anatomy.interpret.logit_lens import load_char_gpt
from anatomy.models.gpt import GPT, GPTConfig
from anatomy.tasks import docstring_lm

PROMPTS, PROMPT_LENGTH, NEW = 24, 8, 48


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def s1() -> None:
    target, vocabulary = load_char_gpt()
    corpus = docstring_lm.docstring_corpus()
    assert corpus.characters == vocabulary.characters, "the shipped GPT and this corpus number characters alike"
    starts = [s[:PROMPT_LENGTH] for s in corpus.decode(corpus.validation_ids).split("\n") if len(s) >= PROMPT_LENGTH]
    prompts = [corpus.encode(s)[None] for s in starts[:PROMPTS]]
    torch.manual_seed(0)
    small = GPT(GPTConfig(vocab_size=target.config.vocab_size, hidden_size=64, num_attention_heads=2, num_hidden_layers=1,
                          intermediate_size=256, max_position_embeddings=target.config.max_position_embeddings))
    seconds = docstring_lm.train_docstring_gpt(small, corpus, steps=300, progress=False).seconds
    small.eval()
    drafts = {"bigram": docstring_lm.BigramLM(corpus, target.config.max_position_embeddings),
              "1-layer GPT": small}
    expected = [generate(target, p, max_new_tokens=NEW) for p in prompts]  # warm-up, and the tokens to match
    alone = {mode: min(timed(lambda: [generate(target, p, max_new_tokens=NEW, do_sample=mode == "sampled",
                                               generator=torch.Generator().manual_seed(0)) for p in prompts])
                       for _ in range(2)) for mode in ("greedy", "sampled")}
    print(f"S1  target alone: {alone['greedy'] / (PROMPTS * NEW) * 1e3:.2f} ms per character greedy, "
          f"{alone['sampled'] / (PROMPTS * NEW) * 1e3:.2f} sampled ({PROMPTS} prompts x {NEW} characters, KV cache); "
          f"the GPT draft trained in {seconds:.0f} s")
    print(f"    {'draft':>12} {'mode':>8} {'k':>2} {'accepted':>9} {'chars/call':>11} {'speed-up':>9}")
    best = {}
    for name, draft in drafts.items():
        for mode in ("greedy", "sampled"):
            for k in range(1, 9):
                runs = []
                elapsed = min(timed(lambda: runs.__setitem__(slice(None), [speculative_generate(
                    target, draft, p, max_new_tokens=NEW, k=k, do_sample=mode == "sampled",
                    generator=torch.Generator().manual_seed(0)) for p in prompts])) for _ in range(2))
                if mode == "greedy":
                    assert all(torch.equal(r.sequence, e) for r, e in zip(runs, expected)), f"{name}, k={k}: not the target's text"
                accepted = sum(run.accepted for run in runs) / sum(run.drafted for run in runs)
                per_call = PROMPTS * NEW / sum(run.target_calls for run in runs)
                best[name, mode] = max(best.get((name, mode), (0, 0)), (alone[mode] / elapsed, k))
                print(f"    {name:>12} {mode:>8} {k:>2} {accepted:>9.0%} {per_call:>11.2f} {alone[mode] / elapsed:>8.2f}x")
    for (name, mode), (speed_up, k) in best.items():
        print(f"    best, {name} draft, {mode}: {speed_up:.2f}x at k = {k} (goal >= 1.5x)"
              + (", token-identical to the target's greedy text" if mode == "greedy" else ""))


if __name__ == "__main__":
    torch.set_num_threads(2)
    s1()
