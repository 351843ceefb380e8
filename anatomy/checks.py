"""Checking arguments where they come in, with one message form: what was expected, what came, what to pass:
numbers, devices, scores, labels, batches, and (for 15-17 first) object kinds, tensor ranks, lists of texts, ids.

Taught in: every notebook that trains or generates (from 00_before_transformers). Shapes: B batch, T tokens, V vocabulary.
NaN inside arithmetic propagates as torch lets it; a function that PICKS something (a token, a class) from
values refuses NaN (check_scores). tests/test_api_sweep.py holds every public function to the same rule.
"""
from __future__ import annotations

import math
from collections.abc import Collection
from numbers import Integral, Real
from typing import Any

import torch


def check_integer(name: str, value: Any, least: int = 1, most: int | None = None, hint: str = "") -> int:
    """Return `value` if it is an integer (not a bool, not 2.5) in [least, most]; else raise naming `name`."""
    bounds = f">= {least}" if most is None else f"in [{least}, {most}]"
    if (not isinstance(value, Integral) or isinstance(value, bool)
            or value < least or (most is not None and value > most)):
        raise ValueError(f"{name} must be an integer {bounds}, got {value!r}{hint}")
    return int(value)


def check_number(name: str, value: Any, above: float | None = None, at_least: float | None = None,
                 at_most: float | None = None, below: float | None = None, hint: str = "") -> float:
    """Return `value` if it is a finite real number (not NaN, not inf, not a bool) within the bounds given."""
    ok = isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(value)
    if ok:
        ok = ((above is None or value > above) and (at_least is None or value >= at_least)
              and (at_most is None or value <= at_most) and (below is None or value < below))
    if not ok:
        wanted = " and ".join(f"{sign} {bound}" for sign, bound in ((">", above), (">=", at_least), ("<=", at_most),
                                                                      ("<", below)) if bound is not None)
        raise ValueError(f"{name} must be a finite number {wanted}".rstrip() + f", got {value!r}{hint}")
    return float(value)


def check_device(device: Any) -> torch.device:
    """A torch.device that exists on this machine, or an error that says which exist and what to pass."""
    try:
        device = torch.device(device if device is not None else "cpu")
    except (RuntimeError, TypeError) as error:
        raise ValueError(f"device must be 'cpu', 'cuda', 'cuda:0', 'mps' or a torch.device, got {device!r} ({error})") from None
    available = {"cpu": True, "cuda": torch.cuda.is_available(),
                 "mps": getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available()}
    if not available.get(device.type, True):
        raise ValueError(f"device={str(device)!r} was asked for, but torch finds no {device.type} device on this "
                         f"machine (torch {torch.__version__}); pass device='cpu', or anatomy.pick_device() "
                         "for the best device there is")
    if device.type == "cuda" and device.index is not None and device.index >= torch.cuda.device_count():
        raise ValueError(f"device={str(device)!r} was asked for, but this machine has {torch.cuda.device_count()} "
                         "CUDA device(s), numbered from 0; pass device='cuda' (the first one)")
    return device


def check_scores(scores: torch.Tensor, what: str = "logits") -> None:
    """Before picking the best entry of each row of (..., V) scores: refuse NaN, +inf, and rows with
    nothing finite to pick (all -inf). A NaN comes from the model (NaN weights, an fp16 overflow)."""
    if not isinstance(scores, torch.Tensor) or not scores.is_floating_point() or scores.dim() == 0:
        raise ValueError(f"{what} must be a floating-point (..., V) tensor, got {type(scores).__name__} "
                         f"{tuple(getattr(scores, 'shape', ()))}")
    if scores.size(-1) and torch.isfinite(scores.amax(dim=-1)).all():  # per token: the usual case in two operations
        return  # (a row's max is NaN, +inf or -inf exactly when the row holds NaN, holds +inf, or is all -inf)
    broken = (scores.isnan() | (scores == float("inf"))).any(dim=-1) | (scores == float("-inf")).all(dim=-1)
    raise ValueError(f"{what} hold NaN, +inf, or only -inf in row(s) {broken.flatten().nonzero().flatten().tolist()[:8]}: "
                     f"nothing can be picked from them. The model's output is broken there (NaN or overflowing weights or "
                     f"inputs, or a mask that hides everything); check {what}.isnan().any() after each step")


def check_labels(labels: Any, size: int, num_classes: int | None = None, name: str = "labels") -> None:
    """Raise unless `labels` is a (B,) integer tensor with B = `size` (and values in 0..num_classes-1).
    A (B, 1) column against (B,) predictions would broadcast to B x B comparisons."""
    if not isinstance(labels, torch.Tensor):
        raise TypeError(f"{name} must be a ({size},) integer tensor, got {type(labels).__name__}")
    if labels.shape != (size,) or labels.is_floating_point() or labels.dtype == torch.bool:
        raise ValueError(f"{name} must be a ({size},) integer tensor, one class per example, got shape "
                         f"{tuple(labels.shape)} and dtype {labels.dtype}"
                         + ("; flatten a (B, 1) column with labels.flatten()" if labels.dim() == 2 else ""))
    if num_classes is not None and labels.numel() and not 0 <= int(labels.min()) <= int(labels.max()) < num_classes:
        raise ValueError(f"{name} must lie in 0..{num_classes - 1}, got values from {int(labels.min())} "
                         f"to {int(labels.max())}")


def check_padding_side(mask: torch.Tensor, side: str | None, name: str, why: str = "") -> None:
    """Raise unless every row of a (B, T) 0/1 mask has a real token and (unless side is None) its
    padding only on `side` ('left': 0 ... 0 1 ... 1; 'right': 1 ... 1 0 ... 0)."""
    if check_tensor(name, mask).dim() != 2 or not ((mask == 0) | (mask == 1)).all():
        raise ValueError(f"{name} must be a (B, T) mask of 1s (real tokens) and 0s (padding), got shape "
                         f"{tuple(mask.shape)} with values {sorted(set(mask.flatten().tolist()))[:5]}")
    empty = (~mask.bool().any(dim=1)).nonzero().flatten().tolist()
    if empty:
        raise ValueError(f"row(s) {empty[:8]} of {name} are all padding (0s): every row needs at least one real token")
    if side is None:
        return
    steps = mask.long().diff(dim=1)  # +1 where padding turns into tokens, -1 where tokens turn into padding
    wrong = ((steps < 0) if side == "left" else (steps > 0)).any(dim=1).nonzero().flatten().tolist()
    if wrong:
        raise ValueError(f"row(s) {wrong[:8]} of {name} are not padded on the {side}: {why}")


def check_batches(size: int, batch_size: Any, what: str) -> int:
    """Refuse an empty set, or one smaller than a batch: an endless batch stream would never yield."""
    check_integer("batch_size", batch_size)
    if size == 0:
        raise ValueError(f"{what} is empty (0 examples): there is nothing to batch")
    if size < batch_size:
        raise ValueError(f"batch_size ({batch_size}) is larger than the {size} examples of {what}: not one full "
                         f"batch can be drawn; pass batch_size <= {size}")
    return batch_size


def check_type(name: str, value: Any, *kinds: type, what: str = "") -> Any:
    """Return `value` if it is an instance of one of `kinds`; else a TypeError naming `name`."""
    if not isinstance(value, kinds) or isinstance(value, bool) and bool not in kinds:
        wanted = what or " or ".join(kind.__name__ for kind in kinds)
        raise TypeError(f"{name} must be {wanted}, got {type(value).__name__}")
    return value


def check_tensor(name: str, value: Any, rank: int | None = None, floating: bool | None = None, shape: str = "") -> torch.Tensor:
    """Return `value` if it is a tensor of `rank` dimensions, floating point (or integer) when asked."""
    kind = {True: "a floating-point ", False: "an integer ", None: "a "}[floating]
    wanted = f"{kind}{shape or (f'{rank}-dimensional' if rank is not None else '')} tensor".replace("  ", " ")
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{name} must be {wanted}, got {type(value).__name__}")
    if (rank is not None and value.dim() != rank) or (floating is not None and value.is_floating_point() != floating) \
            or (floating is False and value.dtype == torch.bool):
        raise ValueError(f"{name} must be {wanted}, got a {value.dtype} tensor of shape {tuple(value.shape)}")
    return value


def check_texts(texts: Any, name: str = "texts", allow_empty: bool = False) -> list[str]:
    """The strings of `texts` as a list; refuse one string (read char by char), None, a non-string, no text."""
    if isinstance(texts, (str, bytes)):
        raise TypeError(f"{name} must be a list of texts, got one {type(texts).__name__} ({texts[:30]!r}...): it "
                        f"would be read one character at a time; wrap it in a list: pass [text]")
    if texts is None or not hasattr(texts, "__iter__"):
        raise TypeError(f"{name} must be a list of texts (strings), got {type(texts).__name__}")
    texts = list(texts)
    wrong = [(i, type(text).__name__) for i, text in enumerate(texts) if not isinstance(text, str)]
    if wrong:
        raise TypeError(f"{name} must hold strings only, got (position, type) {wrong[:5]}")
    if not texts and not allow_empty:
        raise ValueError(f"{name} is empty: expected at least one text")
    return texts


def check_vocabulary_ids(name: str, ids: torch.Tensor, vocab_size: int, allowed: Collection[int] = ()) -> None:
    """Raise unless `ids` is an integer tensor of ids in [0, vocab_size) or in `allowed` (e.g. the label -100)."""
    if not isinstance(ids, torch.Tensor) or ids.is_floating_point() or ids.is_complex() or ids.dtype == torch.bool:
        got = f"a {ids.dtype} tensor" if isinstance(ids, torch.Tensor) else f"a {type(ids).__name__}"
        raise ValueError(f"{name} must be an integer tensor of token ids, got {got}")
    outside = ((ids < 0) | (ids >= vocab_size)) & ~torch.isin(ids, ids.new_tensor(list(allowed)))
    if outside.any():
        raise ValueError(f"{name} must hold ids in [0, {vocab_size - 1}] (vocab_size {vocab_size})"
                         f"{' or ' + str(sorted(allowed)) if allowed else ''}, got {sorted(set(ids[outside].tolist()))[:5]}")
