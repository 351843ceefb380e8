"""Notebook 20's runs, timed: python benchmarks/alignment.py [a1|a2] (part of make bench).

A1: the base GPT's pre-training, as `make base-gpt` runs it (goal: <= 300 s on two CPU cores), and its
held-out loss per source. A2: one SFT run of the base GPT with notebook 20's recipe, seed 0, the loss on
the assistant's tokens (goal: <= 120 s), and held-out exact match per task (200 prompts each). Writes
nothing: the shipped files stay as they are. Never a timed test.
"""
from __future__ import annotations

import copy
import sys

import torch

from anatomy.alignment import fine_tune, held_out_scores, load_base_gpt, pretrain_base_gpt, training_examples
from anatomy.alignment.sft_training import RECIPE

BASE_GOAL_S, SFT_GOAL_S = 300, 120


def a1() -> None:
    _, _, record = pretrain_base_gpt()
    verdict = "" if record["seconds"] <= BASE_GOAL_S else f"   time goal <= {BASE_GOAL_S} s MISSED"
    print(f"A1 base GPT pre-training ({record['steps']} steps of {record['batch_size']}, {torch.get_num_threads()} threads): "
          f"{record['seconds']:.1f} s{verdict}")
    print("   held-out loss, nats per character: "
          + ", ".join(f"{name} {loss:.3f}" for name, loss in record["held_out_loss"].items()))


def a2() -> None:
    base, tokenizer, _ = load_base_gpt()
    model = copy.deepcopy(base)
    run = fine_tune(model, tokenizer, training_examples(seed=0), loss_on="assistant", seed=0)
    verdict = "" if run.seconds <= SFT_GOAL_S else f"   time goal <= {SFT_GOAL_S} s MISSED"
    print(f"A2 SFT of the base GPT ({RECIPE['steps']} steps of {RECIPE['batch_size']} chats, seed 0, "
          f"{torch.get_num_threads()} threads): {run.seconds:.1f} s{verdict}")
    print("   held-out exact match (200 prompts per task): "
          + ", ".join(f"{task} {s['exact_match']:.1%}" for task, s in held_out_scores(model, tokenizer, 200).items()))


def main(arguments: list[str]) -> None:
    parts = {"a1": a1, "a2": a2}
    if not set(arguments) <= set(parts):
        raise SystemExit(f"usage: python benchmarks/alignment.py [a1] [a2], got {arguments}")
    for name in arguments or parts:
        parts[name]()


if __name__ == "__main__":
    main(sys.argv[1:])
