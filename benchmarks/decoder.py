"""The decoder branch's goals (notebook 11), measured in one run: python benchmarks/decoder.py (or make bench).
  D1  generation with the KV cache vs without: 512 new tokens, a 4-layer D=256 GPT, 2 threads,
      token-identical                                                            (goal >= 5x faster)
  D2  training the character GPT on the stdlib docstrings: seconds and held-out loss vs the bigram
      baseline                                          (goal <= 120 s, loss clearly below the bigram)
"""
from __future__ import annotations

import torch

from anatomy.tasks import docstring_lm
from anatomy.models.gpt import GPT, GPTConfig
from anatomy.generation.text_generation import generate
from bench import paired_ratio  # the same alternating timer as P1-P3


def d1() -> None:
    torch.manual_seed(0)
    model = GPT(GPTConfig(vocab_size=100, hidden_size=256, num_attention_heads=4, num_hidden_layers=4,
                          intermediate_size=1024, max_position_embeddings=1024)).eval()
    prompt = torch.randint(0, 100, (1, 8))
    outputs = {}

    def run(use_cache: bool):
        return lambda: outputs.__setitem__(use_cache, generate(model, prompt, max_new_tokens=512, use_cache=use_cache))

    ratio, uncached_s, cached_s = paired_ratio(run(False), run(True), repeats=3)  # ratio = uncached / cached
    identical = torch.equal(outputs[True], outputs[False])
    print(f"D1  KV cache: 512 new tokens in {cached_s:.2f} s with, {uncached_s:.2f} s without: "
          f"{ratio:.1f}x faster (goal >= 5x), token-identical: {identical}")


def d2() -> None:
    corpus = docstring_lm.docstring_corpus()
    torch.manual_seed(0)
    model = GPT(docstring_lm.docstring_config(corpus))
    run = docstring_lm.train_docstring_gpt(model, corpus, progress=False)
    validation, bigram = docstring_lm.validation_loss(model, corpus.validation_ids), docstring_lm.bigram_loss(corpus)
    print(f"D2  character GPT: trained in {run.seconds:.0f} s (goal <= 120 s), held-out loss {validation:.3f} "
          f"vs bigram {bigram:.3f} nats per character")


if __name__ == "__main__":
    torch.set_num_threads(2)
    d1()
    d2()
