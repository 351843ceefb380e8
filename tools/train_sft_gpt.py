"""Fine-tune notebook 20's base GPT on the instruction tasks: python -m tools.train_sft_gpt [seeds] (`make sft-gpt`).

For each seed (default 5), two runs of anatomy.alignment.sft_training.fine_tune from the shipped base GPT,
one per LOSS_ON arm (the loss on the assistant's tokens; on every real token), each followed by held-out
exact match per task on 200 prompts. The same seed draws the same batches in both arms, so the arms are
compared seed by seed (anatomy.tasks.arms.compare_arms). The record (before, after per seed and arm, the
seconds of each run, the paired comparisons) and seed 0's assistant-only model go to anatomy/data/sft_gpt,
which notebook 20 loads. About 18 minutes alone on two CPU cores for 5 seeds (each run 95-107 s).
"""
from __future__ import annotations

import copy
import platform
import sys
from typing import Any

import torch

from anatomy.alignment.base_gpt import load_base_gpt
from anatomy.alignment.sft_training import (LOSS_ON, RECIPE, TRAINING_EXAMPLES, fine_tune, held_out_exact_match,
                                            save_sft_gpt, training_examples)
from anatomy.tasks.arms import compare_arms

HELD_OUT_PER_TASK = 200


def run(seeds: int) -> dict[str, Any]:
    base, tokenizer, _ = load_base_gpt()
    record: dict[str, Any] = {"python": platform.python_version(), "torch": torch.__version__,
                              "threads": torch.get_num_threads(), "recipe": RECIPE, "training_examples": TRAINING_EXAMPLES,
                              "held_out_per_task": HELD_OUT_PER_TASK, "seeds": seeds,
                              "before": held_out_exact_match(base, tokenizer, HELD_OUT_PER_TASK),
                              "after": {arm: [] for arm in LOSS_ON}, "seconds": {arm: [] for arm in LOSS_ON},
                              "final_loss": {arm: [] for arm in LOSS_ON}}
    print("before:", record["before"], flush=True)
    for seed in range(seeds):
        examples = training_examples(seed)
        for arm in LOSS_ON:
            model = copy.deepcopy(base)
            result = fine_tune(model, tokenizer, examples, loss_on=arm, seed=seed)
            scores = held_out_exact_match(model, tokenizer, HELD_OUT_PER_TASK)
            record["after"][arm].append(scores)
            record["seconds"][arm].append(round(result.seconds, 1))
            record["final_loss"][arm].append(round(sum(result.losses[-20:]) / 20, 4))
            print(f"seed {seed} {arm:12} {result.seconds:6.1f} s  " + "  ".join(f"{t} {v:.1%}" for t, v in scores.items()),
                  flush=True)
            if seed == 0 and arm == LOSS_ON[0]:
                shipped = model
    record["assistant_minus_every_token"] = {}
    for task in record["before"]:
        a = [scores[task] for scores in record["after"][LOSS_ON[1]]]
        b = [scores[task] for scores in record["after"][LOSS_ON[0]]]
        comparison = compare_arms(a, b)
        record["assistant_minus_every_token"][task] = {"mean": comparison.mean, "half_width": comparison.half_width}
        print(f"{task:10} assistant-only minus every token: {comparison.describe(higher='assistant-only higher', lower='every-token higher')}")
    save_sft_gpt(shipped, record)
    return record


def main(arguments: list[str]) -> None:
    if len(arguments) > 1 or (arguments and not arguments[0].isdigit()) or (arguments and int(arguments[0]) < 2):
        raise SystemExit(f"usage: python -m tools.train_sft_gpt [seeds, at least 2], got {arguments}")
    run(int(arguments[0]) if arguments else 5)


if __name__ == "__main__":
    main(sys.argv[1:])
