"""Sparse attention patterns as boolean masks (True = may attend): sliding windows and strides.

Taught in: 13_efficient_attention.  Shapes: T tokens (queries and keys are the same sequence).
Each mask keeps O(T * window) or O(T * T / stride) of the T * T pairs; combined with anatomy.layers.masks'
causal mask they give the patterns of Child et al. (2019) and Beltagy et al. (2020).
"""
from __future__ import annotations

import torch

from anatomy.checks import check_integer


def key_offsets(length: int, device: torch.device | str | None = None) -> torch.Tensor:
    """(T, T) offsets i - j from query i back to key j (negative for keys in the future)."""
    check_integer("length", length, least=0)
    positions = torch.arange(length, device=device)
    return positions[:, None] - positions[None, :]  # (T, T)


def local_mask(length: int, window: int, causal: bool = False,
               device: torch.device | str | None = None) -> torch.Tensor:
    """(T, T) sliding-window mask: query i may attend key j when |i - j| < window
    (causal: 0 <= i - j < window, the window keys ending at i). window >= T gives full attention."""
    check_integer("window", window, hint=" (a window of 1 is the query itself)")
    offsets = key_offsets(length, device)  # (T, T)
    allowed = offsets.abs() < window
    return allowed & (offsets >= 0) if causal else allowed  # (T, T)


def strided_mask(length: int, stride: int, causal: bool = False,
                 device: torch.device | str | None = None) -> torch.Tensor:
    """(T, T) strided mask (Child et al., 2019): query i may attend key j when i - j is a multiple
    of `stride` (causal: and j <= i). With local_mask(T, stride) each key is one or two hops away."""
    check_integer("stride", stride, hint=" (a stride of 1 is full attention)")
    offsets = key_offsets(length, device)  # (T, T)
    allowed = offsets % stride == 0
    return allowed & (offsets >= 0) if causal else allowed  # (T, T)
