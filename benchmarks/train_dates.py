"""Notebook 07's training run, measured: python benchmarks/train_dates.py (part of make bench).

Trains a fresh dates Transformer exactly as notebook 07 does (same seed, steps and settings) and
reports the training time and the exact-match accuracy of greedy translations on 1,000 held-out
dates. Goals: >= 98% exact match, <= 90 s of training on two CPU cores. Never a timed test.
"""
from __future__ import annotations

import torch

import anatomy
from anatomy.tasks.dates import CharVocabulary, date_pairs
from anatomy.tasks.dates_translator import dates_config, exact_match, train_dates

STEPS = 600  # as in notebooks/07_training.py, which also uses train_dates()'s default recipe


def main() -> None:
    device = anatomy.pick_device()
    anatomy.seed_everything(0)
    vocab = CharVocabulary()
    model = anatomy.Transformer(dates_config(vocab)).to(device)
    run = train_dates(model, vocab, steps=STEPS, progress=False)
    accuracy = exact_match(model, date_pairs(1000, "held_out", seed=1), vocab)
    print(f"T1 dates Transformer, {STEPS} steps on {device} ({torch.get_num_threads()} threads)")
    print(f"   training time  {run.seconds:6.1f} s   goal <= 90 s  {'met' if run.seconds <= 90 else 'MISSED'}")
    print(f"   exact match    {accuracy:6.1%}     goal >= 98%   {'met' if accuracy >= 0.98 else 'MISSED'}"
          "   (1,000 held-out dates)")


if __name__ == "__main__":
    main()
