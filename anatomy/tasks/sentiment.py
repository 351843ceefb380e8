"""Sentiment fine-tuning of notebook 09: the loss, the recipe, scoring.

Taught in: 09_fine_tuning (and graded in homework 10).  Shapes: B batch, T tokens, D model width, L labels.
The data lives in anatomy.corpora.sentiment_data, its batches in anatomy.tasks.sentiment_batches, the loop in
anatomy.tasks.training; this module joins them.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from anatomy.checks import check_integer, check_number, check_scores, check_tensor, check_texts, check_type
from anatomy.models.classifier import TransformerForSequenceClassification
from anatomy.tasks.sentiment_batches import SentimentBatch, batches_by_length, bucketed_batches, tokenize
from anatomy.corpora.sentiment_data import Reviews
from anatomy.tasks.training import TrainingRun, train


@dataclass
class FineTuningRecipe:
    max_length: int = 48  # tokens kept per sentence, [CLS] and [SEP] included (about 95 % of reviews fit)
    batch_size: int = 32
    peak_lr: float = 1e-4
    weight_decay: float = 0.01
    warmup_fraction: float = 0.1
    epochs: float = 0.75  # 189 steps on the full training split: 85.5 % test accuracy in 135-175 s on 2 cores
    seed: int = 0

    def __post_init__(self) -> None:
        check_integer("max_length", self.max_length, least=3, hint=" (room for [CLS], one token and [SEP])")
        check_integer("batch_size", self.batch_size)
        check_integer("seed", self.seed, least=0)
        check_number("peak_lr", self.peak_lr, above=0)
        check_number("epochs", self.epochs, above=0)
        check_number("weight_decay", self.weight_decay, at_least=0)
        check_number("warmup_fraction", self.warmup_fraction, at_least=0, at_most=1)


def classification_loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy of (B, L) logits against (B,) integer labels in 0..L-1."""
    check_tensor("logits", logits, rank=2, floating=True, shape="(B, L)")
    if check_type("labels", labels, torch.Tensor).dtype != torch.long or labels.shape != logits.shape[:1]:
        raise ValueError(f"labels must be int64 of shape ({logits.size(0)},), "
                         f"got {labels.dtype} of shape {tuple(labels.shape)}")
    if labels.numel() and not 0 <= int(labels.min()) <= int(labels.max()) < logits.size(1):
        raise ValueError(f"labels must lie in 0..{logits.size(1) - 1} (num_labels = {logits.size(1)}), "
                         f"got values from {int(labels.min())} to {int(labels.max())}")
    return F.cross_entropy(logits, labels)


def sentiment_loss(model: nn.Module, batch: SentimentBatch) -> torch.Tensor:
    check_type("batch", batch, SentimentBatch)
    logits = check_type("model", model, nn.Module)(batch.input_ids, attention_mask=batch.attention_mask)  # (B, L)
    return classification_loss(logits, batch.labels)


def fine_tune(model: nn.Module, tokenizer, reviews: Reviews, recipe: FineTuningRecipe = FineTuningRecipe(),
              loss_fn: Callable[[nn.Module, SentimentBatch], torch.Tensor] = sentiment_loss,
              progress: bool = True) -> TrainingRun:
    """Train every parameter of `model` that requires grad, with AdamW and warm-up then linear decay."""
    device = next(model.parameters()).device
    token_ids = tokenize(tokenizer, reviews.texts, recipe.max_length)
    steps = max(1, round(recipe.epochs * len(token_ids) / recipe.batch_size))
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=recipe.peak_lr, weight_decay=recipe.weight_decay)
    batches = bucketed_batches(token_ids, reviews.labels, recipe.batch_size, recipe.seed,
                               tokenizer.pad_token_id, device)
    return train(model, batches, loss_fn, steps, optimizer=optimizer,
                 warmup_steps=int(recipe.warmup_fraction * steps), progress=progress)


@torch.no_grad()
def predict_probabilities(model: nn.Module, tokenizer, texts: Sequence[str], max_length: int = 64,
                          batch_size: int = 128) -> torch.Tensor:
    """(N, L) softmax probabilities, in the order of `texts`; the model is left in eval mode."""
    if not check_texts(texts, allow_empty=True):
        raise ValueError("texts is an empty batch: expected at least one sentence, got 0")
    check_type("model", model, nn.Module).eval()
    probabilities = torch.empty(len(texts), model.config.num_labels)
    for rows, batch in batches_by_length(tokenizer, texts, max_length, batch_size, next(model.parameters()).device):
        probabilities[rows] = model(batch.input_ids, attention_mask=batch.attention_mask).softmax(-1).cpu()
    return probabilities


def accuracy(model: nn.Module, tokenizer, reviews: Reviews, max_length: int = 64) -> float:
    probabilities = predict_probabilities(model, tokenizer, check_type("reviews", reviews, Reviews).texts, max_length)
    check_scores(probabilities, "predicted probabilities")  # never count an argmax of NaN as a prediction
    predicted = probabilities.argmax(-1)
    return (predicted == torch.tensor(reviews.labels)).float().mean().item()


class Analyser:
    """Scores one sentence: the probability that it is positive."""

    def __init__(self, model: TransformerForSequenceClassification, tokenizer, max_length: int = 64) -> None:
        self.model, self.tokenizer, self.max_length = model, tokenizer, max_length

    def __call__(self, sentence: str) -> float:
        return predict_probabilities(self.model, self.tokenizer, [sentence], self.max_length)[0, 1].item()
