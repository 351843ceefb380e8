"""Activation patching: run a corrupted input, paste in one activation from the clean run, see how much
of the clean answer comes back.

Taught in: 17_interpretability.  Shapes: B batch, T positions, P hook points.
Meng et al. (2022) call it causal tracing; Heimersheim & Nanda (2024) explain how to use and read it.
Restored fraction = (metric(patched) - metric(corrupted)) / (metric(clean) - metric(corrupted)):
0 = the patch changed nothing, 1 = it brought the whole clean answer back.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from torch import nn

from anatomy.checks import check_type
from anatomy.interpret.hooks import Edit, Hooks

Metric = Callable[[object], torch.Tensor]  # the model's output -> a number (a 0-dim tensor)


def patch(name: str, source: torch.Tensor, position: int | None = None) -> Edit:
    """An edit that replaces the activation at `name` with `source` (all positions, or only `position`,
    dim 1 of a (B, T, ...) activation)."""
    check_type("source", source, torch.Tensor, what="the activation recorded on the clean run (a tensor)")
    if position is not None and (isinstance(position, bool) or not isinstance(position, int)):
        raise TypeError(f"position must be an integer position (or None for all), got {position!r}")

    def edit(activation: torch.Tensor) -> torch.Tensor:
        if source.shape != activation.shape:
            raise ValueError(f"the patch for {name!r} has shape {tuple(source.shape)}, but the activation there is "
                             f"{tuple(activation.shape)}: record the patch from a run on inputs of the same shape")
        if position is None:
            return source
        if not -activation.size(1) <= position < activation.size(1):
            raise ValueError(f"position {position} is outside the {activation.size(1)} positions of {name!r}")
        patched = activation.clone()
        patched[:, position] = source[:, position]
        return patched
    return edit


def check_pair(clean: Sequence[torch.Tensor], corrupted: Sequence[torch.Tensor]) -> None:
    for name, run in (("clean", clean), ("corrupted", corrupted)):
        check_type(name, run, list, tuple, what="a tuple of the model's arguments, e.g. (input_ids,)")
    if len(clean) != len(corrupted):
        raise ValueError(f"clean and corrupted must hold the same model arguments, got {len(clean)} "
                         f"and {len(corrupted)}")
    for i, (a, b) in enumerate(zip(clean, corrupted)):
        if isinstance(a, torch.Tensor) and (not isinstance(b, torch.Tensor) or a.shape != b.shape):
            got = tuple(b.shape) if isinstance(b, torch.Tensor) else type(b).__name__
            raise ValueError(f"argument {i} of the clean and corrupted runs must have one shape, got {tuple(a.shape)} "
                             f"and {got}: patching pastes position t of one run into position t of the other, so pick "
                             f"two prompts of the same length that differ in one token")


@torch.no_grad()
def restored_fraction(model: nn.Module, names: Sequence[str], clean: Sequence[torch.Tensor],
                      corrupted: Sequence[torch.Tensor], metric: Metric) -> torch.Tensor:
    """(P, T): for each hook point and each position, the fraction of the clean metric that pasting the
    clean activation there (and only there) into the corrupted run restores."""
    check_pair(clean, corrupted)
    if not callable(metric):
        raise TypeError(f"metric must be a function model output -> number, got {type(metric).__name__}")
    if isinstance(names, str) or not names:
        raise ValueError(f"names must be a non-empty list of hook points, got {names!r}; pass e.g. ['blocks.0.resid_post']")
    with Hooks(model, record=names) as cache:
        clean_value = metric(model(*clean))
    corrupted_value = metric(model(*corrupted))
    for run, value in (("clean", clean_value), ("corrupted", corrupted_value)):
        if not isinstance(value, torch.Tensor) or value.numel() != 1 or not value.isfinite().all():
            raise ValueError(f"metric must return one finite number (a 0-dim tensor), got {value!r} on the {run} run")
    gap = clean_value - corrupted_value
    if gap.abs() < 1e-6:
        raise ValueError(f"the metric is {clean_value.item():.4g} on both runs: nothing to restore; pick a "
                         f"corruption that changes the answer")
    grid = torch.zeros(len(names), cache[names[0]].size(1))
    for p, name in enumerate(names):
        for t in range(cache[name].size(1)):
            with Hooks(model, edit={name: patch(name, cache[name], t)}):
                grid[p, t] = (metric(model(*corrupted)) - corrupted_value) / gap
    if grid.isnan().any():
        raise ValueError(f"metric gave NaN on the patched run at (point, position) {grid.isnan().nonzero()[0].tolist()}: "
                         "the model's output is broken there (NaN weights or activations)")
    return grid  # (P, T)


def logit_difference(position: int, good: int, bad: int, batch_index: int = 0) -> Metric:
    """A metric: logit(good) - logit(bad) at one output position (Heimersheim & Nanda's recommended metric)."""
    def metric(output) -> torch.Tensor:
        logits = output.logits[batch_index, position]  # (V,)
        return logits[good] - logits[bad]
    return metric
