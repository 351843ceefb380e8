"""Notebook 00, measured: python benchmarks/train_copy.py (part of make bench).

  C1  trains the fixed-context GRU, the GRU with additive attention (bidirectional encoder) and the
      Transformer with notebook 00's recipe (same steps and the same batches for each), and the
      attention GRU with a one-way encoder (what Bahdanau's bidirectional encoder adds), and prints
      each one's training time (goal <= 60 s on two CPU cores) and letters right per input length.
  C2  the cost side, per sequence length T: one GRU layer (T dependent steps inside nn.GRU) against
      one self-attention layer (a few batched matrix products), batch 8, 64 wide, 4 heads, both on
      the same inputs; times are medians of calls timed alternately, and the ratio column is the
      median of the paired ratios (bench.paired_ratio), not the ratio of the two medians.
  C3  notebook 00's exercise 1: the fixed-context GRU at hidden_size 64 and 128, same recipe and
      batches; time per training step, the ratio, and letters right per input length.
      `python benchmarks/train_copy.py c2` runs only C2 (a few seconds). Never a timed test.
"""
from __future__ import annotations

import sys

import torch
from torch import nn

import anatomy
from anatomy.tasks.copy_task import (MODEL_NAMES, TRAINING_STEPS, accuracy_by_length, build_model, build_rnn,
                                     copy_vocabulary, train_copy)
from bench import paired_ratio

LENGTHS = [5, 10, 15, 20, 30, 40, 50, 60]
COST_LENGTHS = [16, 64, 256, 1024]


def trained_row(model: nn.Module, vocab) -> tuple[float, str]:
    """Train with notebook 00's recipe from seed 0's batches; (seconds, accuracy columns)."""
    run = train_copy(model, vocab, steps=TRAINING_STEPS, progress=False)
    results = accuracy_by_length(model, vocab, LENGTHS)
    return run.seconds, "".join(f"{letters:>5.0%} ({exact:>4.0%})" for letters, exact in results.values())


def c1() -> None:
    """The notebook's three models, and the attention GRU with a one-way encoder (what bidirectionality adds)."""
    device = anatomy.pick_device()
    vocab = copy_vocabulary()
    print(f"C1 copy task, {TRAINING_STEPS} steps each on {device} ({torch.get_num_threads()} threads); "
          "letters right (whole strings right) per input length")
    print(f"   {'model':<25}{'time':>8}" + "".join(f"{length:>12}" for length in LENGTHS))
    for name in (*MODEL_NAMES, "GRU + attention, one-way"):
        anatomy.seed_everything(0)
        model = build_model(name, vocab) if name in MODEL_NAMES else build_rnn(vocab, attention=True, bidirectional=False)
        seconds, columns = trained_row(model.to(device), vocab)
        print(f"   {name:<25}{seconds:>6.1f} s{columns}" + ("" if seconds <= 60 else "   time goal <= 60 s MISSED"))


def c2() -> None:
    torch.manual_seed(0)
    gru = nn.GRU(64, 64, batch_first=True).eval()
    self_attention = anatomy.MultiHeadAttention(anatomy.TransformerConfig(hidden_size=64, num_attention_heads=4)).eval()
    print(f"C2 one GRU layer (T steps) / one self-attention layer (weights kept), batch 8, 64 wide, cpu, "
          f"{torch.get_num_threads()} threads")
    print(f"   {'T':>6}{'GRU ms':>10}{'attention ms':>14}{'attention / GRU':>17}   (ratio: median of paired ratios)")
    with torch.inference_mode():
        for length in COST_LENGTHS:
            x = torch.randn(8, length, 64)
            ratio, attention_s, gru_s = paired_ratio(lambda: self_attention(x), lambda: gru(x), repeats=7)
            print(f"   {length:>6}{gru_s * 1e3:>10.2f}{attention_s * 1e3:>14.2f}{ratio:>17.2f}")


def c3() -> None:
    device = anatomy.pick_device()
    vocab = copy_vocabulary()
    print(f"C3 notebook 00 exercise 1: the fixed-context GRU, wider; {TRAINING_STEPS} steps each on {device} "
          f"({torch.get_num_threads()} threads); letters right (whole strings right) per input length")
    print(f"   {'hidden_size':<12}{'parameters':>11}{'ms/step':>9}" + "".join(f"{length:>12}" for length in LENGTHS))
    per_step = {}
    for width in (64, 128):
        anatomy.seed_everything(0)
        model = build_rnn(vocab, hidden_size=width, attention=False).to(device)
        seconds, columns = trained_row(model, vocab)
        per_step[width] = seconds / TRAINING_STEPS
        print(f"   {width:<12}{sum(p.numel() for p in model.parameters()):>11,}{per_step[width] * 1e3:>9.1f}{columns}")
    print(f"   time per step, 128 / 64: {per_step[128] / per_step[64]:.1f}")


def main() -> None:
    parts = sys.argv[1:] or ["c1", "c2", "c3"]
    for part in parts:
        {"c1": c1, "c2": c2, "c3": c3}[part]()


if __name__ == "__main__":
    main()
