"""Notebook 16's runs, timed: python benchmarks/pretraining.py (part of make bench).

P1: the masked-LM pre-training run `make pretrain` ships (goal: <= 120 s on two CPU cores). P2: one
fine-tuning run of each length the comparison uses (40 and 120 optimiser steps, from the pre-trained
weights), then the whole comparison's time estimated from the steps it runs (its trials and each arm's
chosen recipe, read from the committed fine_tuning_comparison.json), and `make pretrain` in all (goal:
<= 600 s). Writes nothing: the pre-training goes to a temporary folder. Never a timed test.
"""
from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root: tools/ is maintainer tooling

from anatomy.tokenizers.bpe import ByteLevelBPE
from anatomy.models.masked_lm import TransformerForMaskedLM
from anatomy.tasks.mlm_pretraining import PRETRAINED_DIR, SentenceTokenizer
from anatomy.tasks.pretraining_payoff import COMPARISON_FILE, TRIALS, TUNING_SEEDS, fine_tuned_accuracy, recipe_for
from anatomy.corpora.sentiment_data import load_reviews
from tools import pretrain as pretraining_run  # noqa: E402


def comparison_steps(comparison: dict) -> tuple[int, int]:
    """(optimiser steps, runs) of the committed comparison: every arm's trials, then its chosen recipe."""
    steps = runs = 0
    for arm in comparison["tuning"].values():
        steps += sum(trial["steps"] for trial in arm["trials"]) * len(TUNING_SEEDS)
        runs += len(arm["trials"]) * len(TUNING_SEEDS)
        final = len(comparison["by_training_size"]) * len(comparison["seeds"])
        steps, runs = steps + arm["chosen"]["steps"] * final, runs + final
    return steps, runs


def main() -> None:
    print(f"P1 masked-LM pre-training ({torch.get_num_threads()} threads), {pretraining_run.STEPS} steps of "
          f"{pretraining_run.BATCH_SIZE} sequences; goal <= 120 s")
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        pretraining_run.main(["--no-comparison", "--out", folder])
        pretraining = time.perf_counter() - start
        print(f"P1 pre-training run, tokenizer and data included: {pretraining:.0f} s")
        model = TransformerForMaskedLM.from_pretrained(Path(folder))
        tokenizer = SentenceTokenizer(ByteLevelBPE.load(Path(folder) / "tokenizer.json"))
    encoder_state = {name.removeprefix("encoder."): value for name, value in model.state_dict().items()
                     if name.startswith("encoder.")}
    pool, test_split = load_reviews("validation"), load_reviews("test")
    seconds = {}
    for steps in sorted({steps for _, steps in TRIALS}):
        start = time.perf_counter()
        score, _ = fine_tuned_accuracy(model.config, encoder_state, tokenizer, pool.subset(250), test_split, seed=0,
                                       recipe=recipe_for(1e-3, steps, 250))
        seconds[steps] = time.perf_counter() - start
        print(f"P2 fine-tuning, {steps} steps on 250 labels, test accuracy included: {seconds[steps]:.1f} s ({score:.1%})")
    per_step = (seconds[max(seconds)] - seconds[min(seconds)]) / (max(seconds) - min(seconds))
    overhead = seconds[min(seconds)] - per_step * min(seconds)  # building the model, tokenising, scoring
    steps, runs = comparison_steps(json.loads(COMPARISON_FILE.read_text()))
    estimate = steps * per_step + runs * overhead
    print(f"P2 the comparison: {runs} runs, {steps:,} steps, about {estimate:.0f} s "
          f"({per_step * 1000:.0f} ms a step, {overhead:.1f} s a run besides)")
    print(f"P3 make pretrain, estimated: {pretraining + estimate:.0f} s; goal <= 600 s")
    print(f"(the shipped weights in {PRETRAINED_DIR} came from `make pretrain` on the maintainers' machine)")


if __name__ == "__main__":
    main()
