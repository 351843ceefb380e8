"""Notebook 14's ViT training run, measured: python benchmarks/train_vit.py (part of make bench).

Trains a fresh ViT on scikit-learn's 8 x 8 digits exactly as notebook 14 does (same seed, steps and
recipe), then the same-size MLP baseline, and reports time and test accuracy (360 held-out images).
Goals for the ViT: >= 93% test accuracy (notebook 14's check; seed 0 gave 96.7-98.1% on three machines), <= 60 s of training on two CPU cores. Never a timed test.
`--seeds N` trains the ViT on seeds 0..N-1 instead (about a minute each) and prints the spread that
notebook 14's check is sized by: 94.2-98.3% over 12 seeds on a CPU, 95.0-98.3% on a GPU (2026-11-26).
"""
from __future__ import annotations

import argparse
import statistics

import torch

import anatomy
from anatomy.tasks.digits import accuracy, load_digits_split, pixel_mlp, train_digits
from anatomy.models.vit import VisionTransformer, VisionTransformerConfig

STEPS = 800  # as in notebooks/14_vision_transformer.py
MLP_HIDDEN = 280  # about the ViT's parameter count


def seed_spread(seeds: int) -> None:
    """The ViT's test accuracy over seeds 0..seeds-1 (initialisation and batches both drawn from the seed)."""
    device = anatomy.pick_device()
    split = load_digits_split(device)
    accuracies = []
    for seed in range(seeds):
        anatomy.seed_everything(seed)
        vit = VisionTransformer(VisionTransformerConfig()).to(device)
        train_digits(vit, split, steps=STEPS, seed=seed, progress=False)
        accuracies.append(accuracy(vit, split.test_images, split.test_labels))
        print(f"   seed {seed:2d}  test accuracy {accuracies[-1]:6.1%}", flush=True)
    print(f"V1s ViT over {seeds} seeds on {device}: lowest {min(accuracies):.1%}, mean {statistics.mean(accuracies):.1%}, "
          f"highest {max(accuracies):.1%} (notebook 14 asserts >= 93%)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=0, help="train on seeds 0..N-1 and print the spread instead")
    seeds = parser.parse_args().seeds
    if seeds > 0:
        return seed_spread(seeds)
    device = anatomy.pick_device()
    split = load_digits_split(device)
    anatomy.seed_everything(0)
    vit = VisionTransformer(VisionTransformerConfig()).to(device)
    run = train_digits(vit, split, steps=STEPS, progress=False)
    vit_accuracy = accuracy(vit, split.test_images, split.test_labels)
    anatomy.seed_everything(0)
    mlp = pixel_mlp(MLP_HIDDEN).to(device)
    mlp_run = train_digits(mlp, split, steps=STEPS, progress=False)
    mlp_accuracy = accuracy(mlp, split.test_images, split.test_labels)
    count = lambda model: sum(p.numel() for p in model.parameters())  # noqa: E731
    print(f"V1 ViT on the digits, {STEPS} steps on {device} ({torch.get_num_threads()} threads), "
          f"{count(vit):,} parameters")
    print(f"   training time  {run.seconds:6.1f} s   goal <= 60 s  {'met' if run.seconds <= 60 else 'MISSED'}")
    print(f"   test accuracy  {vit_accuracy:6.1%}     goal >= 93%   {'met' if vit_accuracy >= 0.93 else 'MISSED'}"
          "   (seed 0; 12 seeds span 94.2-98.3%: --seeds 12)")
    print(f"   MLP baseline   {mlp_accuracy:6.1%} in {mlp_run.seconds:.1f} s, {count(mlp):,} parameters")


if __name__ == "__main__":
    main()
