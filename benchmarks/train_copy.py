"""Notebook 00's three copy-task models, measured: python benchmarks/train_copy.py (part of make bench).

Trains the fixed-context GRU, the GRU with additive attention and the Transformer with notebook
00's recipe (same steps and the same batches for each) and prints each one's training time (goal <= 60 s
on two CPU cores) and its letters-right accuracy per input length. Never a timed test.
"""
from __future__ import annotations

import torch

import anatomy
from anatomy.copy_task import MODEL_NAMES, accuracy_by_length, build_model, copy_vocabulary, train_copy

STEPS = 1000  # as in notebooks/00_before_transformers.py
LENGTHS = [5, 10, 15, 20, 30, 40, 50, 60]


def main() -> None:
    device = anatomy.pick_device()
    vocab = copy_vocabulary()
    print(f"C1 copy task, {STEPS} steps each on {device} ({torch.get_num_threads()} threads); "
          "letters right (whole strings right) per input length")
    print(f"   {'model':<20}{'time':>8}" + "".join(f"{length:>11}" for length in LENGTHS))
    for name in MODEL_NAMES:
        anatomy.seed_everything(0)
        model = build_model(name, vocab).to(device)
        run = train_copy(model, vocab, steps=STEPS, progress=False)
        results = accuracy_by_length(model, vocab, LENGTHS)
        print(f"   {name:<20}{run.seconds:>6.1f} s" + "".join(
            f"{letters:>6.0%} ({exact:>3.0%})"[-11:] for letters, exact in results.values())
            + ("" if run.seconds <= 60 else "   time goal <= 60 s MISSED"))


if __name__ == "__main__":
    main()
