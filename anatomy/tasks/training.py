"""One training loop for every task: the dates translator, a GPT, a sentiment classifier, a ViT.

Taught in: 07_training.  Shapes: B batch, T tokens, V vocabulary.
The loop knows nothing about any task. A task brings three things: the model, an iterable of
batches, and a `loss_fn(model, batch) -> scalar tensor`. Each task's data and defaults live next
to the task (anatomy.tasks.dates_translator for notebook 07).
"""
from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn
from tqdm.auto import tqdm

from anatomy.checks import check_tensor
from anatomy.checks import check_integer, check_number


def warmup_then_decay(step: int, warmup_steps: int, total_steps: int) -> float:
    """The learning-rate multiplier: grows linearly for warmup_steps (as in the paper, section 5.3),
    then falls linearly to 0 at total_steps (the paper decays as 1/sqrt(step) over a much longer run)."""
    check_integer("step", step, least=0)
    check_integer("warmup_steps", warmup_steps, least=0)  # 0: no warm-up
    if step < warmup_steps:
        return (step + 1) / warmup_steps
    if step >= total_steps:
        return 0.0
    return (total_steps - step) / (total_steps - warmup_steps)


def token_cross_entropy(logits: torch.Tensor, labels: torch.Tensor, ignore_id: int,
                        label_smoothing: float = 0.0) -> torch.Tensor:
    """Mean cross-entropy over the real tokens of a batch of sequences; `ignore_id` (padding) does not count."""
    check_tensor("logits", logits, rank=3, floating=True, shape="(B, T, V)")
    check_tensor("labels", labels, rank=2, floating=False, shape="(B, T)")
    check_integer("ignore_id", ignore_id, least=-2**31)
    check_number("label_smoothing", label_smoothing, at_least=0, at_most=1)
    if logits.shape[:2] != labels.shape:
        raise ValueError(f"logits must be (B, T, V) and labels (B, T) with the same B and T, got "
                         f"{tuple(logits.shape)} and {tuple(labels.shape)}")
    return F.cross_entropy(logits.flatten(0, 1), labels.flatten(), ignore_index=ignore_id,  # (B*T, V), (B*T,)
                           label_smoothing=label_smoothing)


@dataclass
class TrainingRun:
    losses: list[float] = field(default_factory=list)
    learning_rates: list[float] = field(default_factory=list)
    seconds: float = 0.0


def train(model: nn.Module, batches: Iterable[Any], loss_fn: Callable[[nn.Module, Any], torch.Tensor],
          steps: int, optimizer: torch.optim.Optimizer | None = None, peak_lr: float = 5e-3,
          warmup_steps: int = 100, max_grad_norm: float | None = None, progress: bool = True) -> TrainingRun:
    """`steps` optimizer steps, one per batch drawn from `batches`, with the warm-up-then-decay
    schedule on `optimizer` (default: Adam with the paper's betas (0.9, 0.98) and eps 1e-9 at
    `peak_lr`). Hands the model back in eval mode; returns the losses, learning rates and time."""
    check_integer("steps", steps)
    check_integer("warmup_steps", warmup_steps, least=0, most=steps, hint=f" (0 to steps = {steps})")
    if max_grad_norm is not None:
        check_number("max_grad_norm", max_grad_norm, above=0, hint=" (or None: no clipping)")
    if optimizer is None:
        optimizer = torch.optim.Adam(model.parameters(), lr=check_number("peak_lr", peak_lr, above=0),
                                     betas=(0.9, 0.98), eps=1e-9)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: warmup_then_decay(step, warmup_steps, steps))
    run, start, batches = TrainingRun(), time.perf_counter(), iter(batches)
    model.train()
    for step in tqdm(range(steps), disable=not progress, file=sys.stdout, mininterval=5, ncols=80):
        batch = next(batches, None)
        if batch is None:
            raise ValueError(f"batches ran out after {step} of {steps} steps: pass more (an endless iterator, or more epochs)")
        loss = loss_fn(model, batch)
        if not isinstance(loss, torch.Tensor) or loss.dim() != 0 or not loss.requires_grad:
            got = (f"a tensor of shape {tuple(loss.shape)}, requires_grad={loss.requires_grad}"
                   if isinstance(loss, torch.Tensor) else repr(loss)[:80])
            raise ValueError(f"loss_fn must return a scalar tensor computed from the model's output, got {got}")
        if not torch.isfinite(loss):
            raise ValueError(f"the loss is {loss.item()} at step {step}: training has diverged (or a batch holds "
                             "NaN); lower the learning rate, clip gradients (max_grad_norm=1.0) or check the data")
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if max_grad_norm is not None:
            nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        optimizer.step()
        run.losses.append(loss.item())
        run.learning_rates.append(schedule.get_last_lr()[0])
        schedule.step()
    run.seconds = time.perf_counter() - start
    model.eval()
    return run
