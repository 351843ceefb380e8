"""Why a fine-tuning run missed the bar, named from evidence the check measures, never guessed.

Homework 2, question 4 (notebook 10). Shapes: B batch, D model width. The evidence:
- the encoder's weights: unchanged (frozen encoder), or how far they moved, relative to their size;
- the losses the run reported, per sentence: the mean of the first and the last 8 steps (chance is ln 2 = 0.693);
- the head's gradient left after the run, against one batch's gradient the check computes itself (times
  the batch size for a loss that sums over the batch): many times larger means the gradients of every
  step were summed (no optimizer.zero_grad()).
The thresholds come from runs measured by benchmarks/homework_fine_tuning.py (see the instructor README).
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from anatomy.homework.feedback import Feedback
from anatomy.homework.messages import Message

GROWTH = 10.0  # head gradient after the run / one batch's: 0.9-1.9 with zero_grad, 5-7 at lr 5e-2, 12-252 without
TOO_LITTLE = 3e-3  # relative change of the encoder's weights: 3.7e-3 to 4.4e-3 at lr 5e-5, 8e-5 at 1e-6
TOO_MUCH = 0.3  # ... 1.9e-2 to 2.0e-2 at lr 3e-4, 6e-2 with no zero_grad at 1e-4, 2.4 at 5e-2
CHANCE = 0.65  # a mean loss of the last 8 steps above this is no better than chance (ln 2 = 0.693)


def too_high(why: Message) -> Feedback:
    return Feedback("st_lr_high", "st_lr_high_name", why=why)


def encoder_change(mine, before: dict) -> tuple[float, float]:
    """(largest change of one weight, change of all weights relative to their size) of the encoder."""
    state = {k: v for k, v in mine.encoder.state_dict().items() if v.is_floating_point()}
    gap = [(state[k] - before[k]).double() for k in state]
    largest = max(g.abs().max().item() for g in gap)
    relative = math.sqrt(sum(g.pow(2).sum().item() for g in gap) / sum(before[k].double().pow(2).sum().item() for k in state))
    return largest, relative


def require_encoder_moved(mine, before: dict) -> None:
    if encoder_change(mine, before)[0] == 0:
        raise Feedback("st_frozen", "st_frozen_name")


def require_finite(losses: list[float]) -> None:
    if not all(math.isfinite(x) for x in losses):
        raise too_high(Message("st_diverged", value=next(x for x in losses if not math.isfinite(x))))


def gradient_growth(classifier, mine, batch, per_loss: int = 1) -> float | None:
    """The head's gradient the run left behind over one batch's gradient (None if the run cleared it);
    `per_loss` sentences per loss: the batch size for a loss that sums over the batch, else 1."""
    left = classifier.head.weight.grad
    if left is None:
        return None
    with torch.no_grad():
        cls = mine.encoder(batch.input_ids, attention_mask=batch.attention_mask).last_hidden_state[:, 0]  # (B, D)
    weight = mine.head.weight.detach().clone().requires_grad_()
    loss = F.binary_cross_entropy_with_logits(F.linear(cls, weight, mine.head.bias.detach()).squeeze(-1), batch.labels.float())
    one, = torch.autograd.grad(loss, weight)
    return left.norm().item() / max(per_loss * one.norm().item(), 1e-12)


def explain_miss(accuracy: float, bar: float, losses: list[float], mine, before: dict, classifier, last_batch,
                 per_loss: int = 1) -> None:
    """Raise the Feedback that says why the accuracy missed the bar (`losses` per sentence)."""
    missed = Message("st_missed", accuracy=accuracy, bar=bar)
    growth = gradient_growth(classifier, mine, last_batch, per_loss)
    if growth is not None and growth > GROWTH:
        raise Feedback("st_no_zero_grad", "st_no_zero_grad_name", growth=growth, missed=missed)
    _, relative = encoder_change(mine, before)
    first, last = (sum(losses[:8]) / 8, sum(losses[-8:]) / 8) if len(losses) >= 16 else (math.nan, math.nan)
    moved = Message("st_moved", relative=relative)
    trend = Message("st_trend", first=first, last=last) if len(losses) >= 16 else Message("st_few_losses")
    if relative < TOO_LITTLE:
        raise Feedback("st_lr_low", "st_lr_low_name", moved=moved, trend=trend, missed=missed)
    if relative > TOO_MUCH or (len(losses) >= 16 and (last > first + 0.02 or (last > CHANCE and relative > 1e-2))):
        raise too_high(Message("st_never_below_chance", trend=trend, moved=moved, missed=missed))
    raise Feedback("st_missed_why", missed=missed, trend=trend, moved=moved)
