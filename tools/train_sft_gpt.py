"""Fine-tune notebook 20's base GPT on the instruction tasks: python -m tools.train_sft_gpt [seeds] (`make sft-gpt`).

For each seed (default 5), three runs of anatomy.alignment.sft_training.fine_tune (ARMS): from the shipped
base GPT with the loss on the assistant's tokens, the same with the loss on every real token, and from
random weights with the assistant-only loss (does pre-training help?). Each is scored on 200 held-out
prompts per task (exact match, turns ended, answers of the task's form). The same seed draws the same
pool and batches in every arm, so arms are compared seed by seed (anatomy.tasks.arms.compare_arms). The
record and seed 0's assistant-only model from the base GPT go to anatomy/data/sft_gpt, which notebook 20
loads. About half an hour on two CPU cores for 5 seeds (each run about two minutes: 98-122 s measured).
"""
from __future__ import annotations

import copy
import platform
import sys
from typing import Any

import torch

from anatomy.alignment.base_gpt import load_base_gpt
from anatomy.alignment.exact_match import held_out_scores
from anatomy.alignment.sft_training import LOSS_ON, RECIPE, TRAINING_EXAMPLES, fine_tune, save_sft_gpt, training_examples
from anatomy.models.gpt import GPT
from anatomy.tasks.arms import compare_arms

HELD_OUT_PER_TASK = 200
# arm -> (the loss's tokens, the starting weights); the third arm asks whether pre-training helps at all
ARMS = {"assistant": (LOSS_ON[0], "base"), "every token": (LOSS_ON[1], "base"),
        "assistant, from random weights": (LOSS_ON[0], "random")}
COMPARISONS = {"assistant_minus_every_token": ("every token", "assistant"),
               "base_minus_random_weights": ("assistant, from random weights", "assistant")}


def run(seeds: int) -> dict[str, Any]:
    base, tokenizer, _ = load_base_gpt()
    before = held_out_scores(base, tokenizer, HELD_OUT_PER_TASK)
    record: dict[str, Any] = {"python": platform.python_version(), "torch": torch.__version__,
                              "threads": torch.get_num_threads(), "recipe": RECIPE, "training_examples": TRAINING_EXAMPLES,
                              "held_out_per_task": HELD_OUT_PER_TASK, "seeds": seeds, "arms": ARMS,
                              "before": {task: s["exact_match"] for task, s in before.items()}, "before_scores": before}
    for key in ("after", "ended", "well_formed", "seconds", "final_loss"):
        record[key] = {arm: [] for arm in ARMS}
    print("before:", before, flush=True)
    for seed in range(seeds):
        examples = training_examples(seed)
        for arm, (loss_on, start) in ARMS.items():
            torch.manual_seed(seed)
            model = copy.deepcopy(base) if start == "base" else GPT(base.config)
            result = fine_tune(model, tokenizer, examples, loss_on=loss_on, seed=seed)
            scores = held_out_scores(model, tokenizer, HELD_OUT_PER_TASK)
            for key in ("exact_match", "ended", "well_formed"):
                record["after" if key == "exact_match" else key][arm].append({t: s[key] for t, s in scores.items()})
            record["seconds"][arm].append(round(result.seconds, 1))
            record["final_loss"][arm].append(round(sum(result.losses[-20:]) / 20, 4))
            print(f"seed {seed} {arm:31} {result.seconds:6.1f} s  "
                  + "  ".join(f"{t} {s['exact_match']:.1%} ({s['well_formed']:.0%} formed)" for t, s in scores.items()), flush=True)
            if seed == 0 and arm == "assistant":
                shipped = model
    for name, (a, b) in COMPARISONS.items():
        record[name] = {}
        for task in record["before"]:
            comparison = compare_arms([s[task] for s in record["after"][a]], [s[task] for s in record["after"][b]])
            record[name][task] = {"mean": comparison.mean, "half_width": comparison.half_width}
            print(f"{task:10} {b} minus {a}: {comparison.describe(higher=f'{b} higher', lower=f'{a} higher')}")
    save_sft_gpt(shipped, record)
    return record


def main(arguments: list[str]) -> None:
    if len(arguments) > 1 or (arguments and not arguments[0].isdigit()) or (arguments and int(arguments[0]) < 2):
        raise SystemExit(f"usage: python -m tools.train_sft_gpt [seeds, at least 2], got {arguments}")
    run(int(arguments[0]) if arguments else 5)


if __name__ == "__main__":
    main(sys.argv[1:])
