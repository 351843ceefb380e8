"""Does pre-training pay? One small classifier fine-tuned on the review labels from random weights and from
masked-LM pre-training: the same recipe, the same budget, the same seeds; accuracy on the test split.

Taught in: 16_pretraining.  Shapes: B batch, T tokens, D model width.
Arm (a) starts from the pre-training run's own initial weights (its snapshot at step 0), arm (b) from its
weights after S steps; with the same seed both get the same pooler and classifier head and see the same
batches, so the encoder's weights are the only difference. `make pretrain` writes COMPARISON_FILE.
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


def compare(snapshots: dict[int, dict[str, torch.Tensor]], config, tokenizer: SentenceTokenizer,
            train_split: Reviews, test_split: Reviews, seeds: Sequence[int],
            recipe: FineTuningRecipe = RECIPE, log=print) -> dict:
    """Fine-tune from every snapshot (pre-training step -> encoder weights) with every seed."""
    results: dict[str, dict[str, list[float]]] = {}
    for step, state in sorted(snapshots.items()):
        accuracies, seconds = [], []
        for seed in seeds:
            score, took = fine_tuned_accuracy(config, state, tokenizer, train_split, test_split, seed, recipe)
            accuracies.append(score)
            seconds.append(took)
            log(f"pre-training steps {step:5d}  seed {seed}  test accuracy {score:.3f}  ({took:.0f} s)")
        results[str(step)] = {"accuracy": accuracies, "seconds": seconds}
    return {"seeds": list(seeds), "test_size": len(test_split), "recipe": asdict(recipe), "runs": results}


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
