"""Does pre-training pay? One small classifier fine-tuned on review labels from random weights and from
masked-LM pre-training, each arm with its own recipe picked from the same trials; accuracy on the test split.

Taught in: 16_pretraining.  Shapes: B batch, T tokens, D model width.
Arm "0" starts from the pre-training run's own initial weights (its step 0), arm "S" from its weights after
S steps. tune_recipe gives every arm the same trials (learning rate, optimiser steps), scored on held-out
sentences, never the test split; payoff then fine-tunes each arm with its own recipe on a few labels, seed by
seed (with one seed both arms get the same pooler and classifier head and the same batches), and
gain_over_random compares them with a paired interval. `make pretrain` writes COMPARISON_FILE.
"""
from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import asdict, replace

import torch

from anatomy.checks import check_integer, check_number
from anatomy.layers.config import require
from anatomy.tasks.arms import ArmComparison, compare_arms, mean_interval  # noqa: F401 (mean_interval: 16 imports it here)
from anatomy.models.classifier import TransformerForSequenceClassification
from anatomy.models.masked_lm import bert_init_
from anatomy.tasks.mlm_pretraining import PRETRAINED_DIR, SentenceTokenizer
from anatomy.tasks.sentiment import FineTuningRecipe, accuracy, fine_tune
from anatomy.corpora.sentiment_data import Reviews

COMPARISON_FILE = PRETRAINED_DIR / "fine_tuning_comparison.json"
# Two epochs at a learning rate a model trained from scratch needs (09's 1e-4 suits a big pre-trained one).
RECIPE = FineTuningRecipe(max_length=48, batch_size=32, peak_lr=5e-4, epochs=2.0)
# Each arm's recipe is picked from the same trials (learning rate, optimiser steps), on TUNING_SIZE labels.
TRIALS = tuple((peak_lr, steps) for peak_lr in (5e-4, 2e-3) for steps in (40, 120))
TUNING_SIZE, TUNING_SEEDS = 250, (100, 101)  # seeds no final run uses


def classifier_from(config, encoder_state: dict[str, torch.Tensor] | None, seed: int) -> TransformerForSequenceClassification:
    """BERT-initialised classifier (seeded), its encoder replaced by `encoder_state` when given."""
    config = copy.deepcopy(require(config, "hidden_size"))
    config.num_labels = 2
    torch.manual_seed(check_integer("seed", seed, least=0))
    model = bert_init_(TransformerForSequenceClassification(config), getattr(config, "initializer_range", 0.02))
    if encoder_state is not None:
        model.encoder.load_state_dict(encoder_state)
    return model


def fine_tuned_accuracy(config, encoder_state: dict[str, torch.Tensor] | None, tokenizer: SentenceTokenizer,
                        train_split: Reviews, test_split: Reviews, seed: int,
                        recipe: FineTuningRecipe = RECIPE) -> tuple[float, float]:
    """(test accuracy, seconds fine-tuning took) of one run."""
    model = classifier_from(config, encoder_state, seed)
    run = fine_tune(model, tokenizer, train_split, replace(recipe, seed=seed), progress=False)
    return accuracy(model, tokenizer, test_split), run.seconds


def recipe_for(peak_lr: float, steps: int, size: int) -> FineTuningRecipe:
    """RECIPE at `peak_lr` for `steps` optimiser steps on `size` labelled sentences (epochs = steps x batch / size)."""
    check_number("peak_lr", peak_lr, above=0)
    check_integer("steps", steps)
    return replace(RECIPE, peak_lr=peak_lr, epochs=steps * RECIPE.batch_size / check_integer("size", size))


def tune_recipe(config, encoder_state: dict[str, torch.Tensor] | None, tokenizer: SentenceTokenizer,
                train_split: Reviews, tuning_split: Reviews, log=print) -> dict:
    """One arm's recipe: every (learning rate, steps) of TRIALS, fine-tuned on `train_split` with TUNING_SEEDS,
    scored on `tuning_split` (never the test split); the best mean wins. Every arm gets the same trials."""
    trials = []
    for peak_lr, steps in TRIALS:
        recipe = recipe_for(peak_lr, steps, len(train_split))
        scores = [fine_tuned_accuracy(config, encoder_state, tokenizer, train_split, tuning_split, seed, recipe)[0]
                  for seed in TUNING_SEEDS]
        trials.append({"peak_lr": peak_lr, "steps": steps, "accuracy": scores})
        log(f"  trial lr {peak_lr:g}, {steps} steps: tuning accuracy {sum(scores) / len(scores):.3f}")
    best = max(trials, key=lambda trial: sum(trial["accuracy"]))
    return {"trials": trials, "chosen": {"peak_lr": best["peak_lr"], "steps": best["steps"]}}


def payoff(config, arms: dict[str, dict[str, torch.Tensor]], tokenizer: SentenceTokenizer, pool: Reviews,
           tuning_split: Reviews, test_split: Reviews, sizes: Sequence[int], seeds: Sequence[int], log=print) -> dict:
    """Each arm (name -> encoder weights) tuned on TUNING_SIZE labels, then fine-tuned with its own recipe on the
    first n sentences of `pool` for every n in `sizes` and every seed; accuracy on `test_split`."""
    result: dict = {"seeds": list(seeds), "test_size": len(test_split), "tuning": {}, "by_training_size": {}}
    for name, state in arms.items():
        log(f"tuning the arm {name!r} on {TUNING_SIZE} labels")
        result["tuning"][name] = tune_recipe(config, state, tokenizer, pool.subset(TUNING_SIZE), tuning_split, log)
    for size in sizes:
        runs = {}
        for name, state in arms.items():
            chosen = result["tuning"][name]["chosen"]
            recipe = recipe_for(chosen["peak_lr"], chosen["steps"], size)
            scores = [fine_tuned_accuracy(config, state, tokenizer, pool.subset(size), test_split, seed, recipe)[0]
                      for seed in seeds]
            runs[name] = {"accuracy": scores}
            log(f"{size:5d} labels, {name}: mean test accuracy {sum(scores) / len(scores):.3f}")
        result["by_training_size"][str(size)] = {"seeds": list(seeds), "runs": runs}
    return result


def paired_gain(result: dict, step: int) -> tuple[float, float]:
    """Mean and 95 % half-width of (accuracy after `step` pre-training steps - accuracy from random), seed by seed."""
    comparison = gain_over_random(result, step)
    return comparison.mean, comparison.half_width


def gain_over_random(result: dict, step: int) -> ArmComparison:
    """The arm pre-trained for `step` steps against random weights, seed by seed (anatomy.tasks.arms.compare_arms)."""
    if not isinstance(result, dict) or not isinstance(result.get("runs"), dict):
        raise TypeError(f"result must be the dict compare() returns (with 'runs'), got {type(result).__name__}")
    runs = result["runs"]
    if "0" not in runs or str(step) not in runs:
        raise ValueError(f"step must be one of the compared pre-training steps {sorted(map(int, runs))} (and 0 must be "
                         f"there to compare with), got {step!r}")
    before, after = runs["0"]["accuracy"], runs[str(step)]["accuracy"]
    if len(before) != len(after) or len(before) != len(result.get("seeds", before)):
        raise ValueError(f"the runs at step 0 and step {step} must hold one accuracy per seed "
                         f"({len(result.get('seeds', before))} seeds), got {len(before)} and {len(after)}: a gain pairs "
                         "the two runs of each seed")
    return compare_arms(before, after)
