"""Checking the arguments every module takes: an object of the right kind, a tensor of the right rank and
dtype, a list of texts (not one string), token ids inside a vocabulary. Each message names the argument.

Taught in: 15_byte_level_bpe to 17_interpretability (their modules call these first); the sweep of
tests/test_api_sweep.py holds every public function of the package to the same rule.
Shapes: B batch, T tokens, V vocabulary.
"""
from __future__ import annotations

from collections.abc import Collection
from typing import Any

import torch


def check_type(name: str, value: Any, *kinds: type, what: str = "") -> Any:
    """Return `value` if it is an instance of one of `kinds`; else a TypeError naming `name`."""
    if not isinstance(value, kinds) or isinstance(value, bool) and bool not in kinds:
        wanted = what or " or ".join(kind.__name__ for kind in kinds)
        raise TypeError(f"{name} must be {wanted}, got {type(value).__name__}")
    return value


def check_tensor(name: str, value: Any, rank: int | None = None, floating: bool | None = None, shape: str = "") -> torch.Tensor:
    """Return `value` if it is a tensor of `rank` dimensions, floating point (or integer) when asked."""
    kind = {True: "floating-point ", False: "integer ", None: ""}[floating]
    wanted = f"a {kind}{shape or (f'{rank}-dimensional' if rank is not None else '')} tensor".replace("  ", " ")
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{name} must be {wanted}, got {type(value).__name__}")
    if (rank is not None and value.dim() != rank) or (floating is not None and value.is_floating_point() != floating) \
            or (floating is False and value.dtype == torch.bool):
        raise ValueError(f"{name} must be {wanted}, got a {value.dtype} tensor of shape {tuple(value.shape)}")
    return value


def check_texts(texts: Any, name: str = "texts", allow_empty: bool = False) -> list[str]:
    """A list of the strings in `texts`; refuse one string (it would be read character by character),
    None, a non-string item, and (unless allow_empty) no text at all."""
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
    """Raise unless `ids` is an integer tensor (any shape) of ids in [0, vocab_size), or in `allowed` (e.g. the
    label -100); anatomy.embeddings.check_token_ids checks (B, T) model inputs."""
    if not isinstance(ids, torch.Tensor) or ids.is_floating_point() or ids.is_complex() or ids.dtype == torch.bool:
        got = f"a {ids.dtype} tensor" if isinstance(ids, torch.Tensor) else f"a {type(ids).__name__}"
        raise ValueError(f"{name} must be an integer tensor of token ids, got {got}")
    outside = ((ids < 0) | (ids >= vocab_size)) & ~torch.isin(ids, torch.tensor(list(allowed), dtype=ids.dtype,
                                                                                 device=ids.device))
    if outside.any():
        raise ValueError(f"{name} must hold ids in [0, {vocab_size - 1}] (vocab_size {vocab_size})"
                         f"{' or ' + str(sorted(allowed)) if allowed else ''}, got {sorted(set(ids[outside].tolist()))[:5]}")
