"""Boolean attention masks: True means "may attend", as in F.scaled_dot_product_attention.

Taught in: 03_attention (causal and padding masks), 06_decoder (combining them) and
13_efficient_attention (local and strided masks).  Shapes: B batch, H heads, Tq queries, Tk keys.
"""
from __future__ import annotations

import torch


def causal_mask(num_queries: int, num_keys: int | None = None,
                device: torch.device | str | None = None) -> torch.Tensor:
    """(Tq, Tk) lower-triangular mask: query i may attend to keys 0..i (aligned at the end if Tk > Tq)."""
    num_keys = num_queries if num_keys is None else num_keys
    ones = torch.ones(num_queries, num_keys, dtype=torch.bool, device=device)
    return torch.tril(ones, diagonal=num_keys - num_queries)  # (Tq, Tk)


def padding_mask(attention_mask: torch.Tensor) -> torch.Tensor:
    """A tokenizer's (B, Tk) attention_mask of 1s and 0s -> (B, 1, 1, Tk) boolean key mask."""
    if attention_mask.dim() != 2:
        raise ValueError(f"attention_mask must be (B, Tk), got shape {tuple(attention_mask.shape)}")
    return attention_mask.bool()[:, None, None, :]  # (B, 1, 1, Tk): broadcasts over heads and queries


def causal_padding_mask(attention_mask: torch.Tensor) -> torch.Tensor:
    """A decoder's self-attention mask: (B, T) attention_mask -> (B, 1, T, T), True where query i
    may attend to key j, i.e. j <= i (causal) and j is a real token (padding)."""
    causal = causal_mask(attention_mask.size(-1), device=attention_mask.device)  # (T, T)
    return causal & padding_mask(attention_mask)  # (T, T) & (B, 1, 1, T) -> (B, 1, T, T)


def key_offsets(length: int, device: torch.device | str | None = None) -> torch.Tensor:
    """(T, T) offsets i - j from query i back to key j (negative for keys in the future)."""
    positions = torch.arange(length, device=device)
    return positions[:, None] - positions[None, :]  # (T, T)


def local_mask(length: int, window: int, causal: bool = False,
               device: torch.device | str | None = None) -> torch.Tensor:
    """(T, T) sliding-window mask: query i may attend key j when |i - j| < window
    (causal: 0 <= i - j < window, the window keys ending at i). window >= T gives full attention."""
    if window < 1:
        raise ValueError(f"window must be at least 1, got {window} (a window of 1 is the query itself)")
    offsets = key_offsets(length, device)  # (T, T)
    allowed = offsets.abs() < window
    return allowed & (offsets >= 0) if causal else allowed  # (T, T)


def strided_mask(length: int, stride: int, causal: bool = False,
                 device: torch.device | str | None = None) -> torch.Tensor:
    """(T, T) strided mask (Child et al., 2019): query i may attend key j when i - j is a multiple
    of `stride` (causal: and j <= i). With local_mask(T, stride) each key is one or two hops away."""
    if stride < 1:
        raise ValueError(f"stride must be at least 1, got {stride}")
    offsets = key_offsets(length, device)  # (T, T)
    allowed = offsets % stride == 0
    return allowed & (offsets >= 0) if causal else allowed  # (T, T)


def check_mask(mask: torch.Tensor, scores_shape: torch.Size | tuple[int, ...]) -> None:
    """Raise ValueError unless `mask` is boolean and broadcasts to the scores' (..., Tq, Tk) shape
    without being broadcast itself (no silent growing of a wrong mask)."""
    if mask.dtype != torch.bool:
        raise ValueError(f"mask must be boolean (True = may attend), got dtype {mask.dtype}")
    expected = tuple(scores_shape)
    if mask.dim() > len(expected) or any(
            m not in (1, s) for m, s in zip(reversed(mask.shape), reversed(expected))):
        raise ValueError(f"mask shape {tuple(mask.shape)} does not broadcast to the attention "
                         f"scores' shape {expected} (..., Tq, Tk)")
    if mask.shape[-1] != expected[-1]:
        raise ValueError(f"mask has {mask.shape[-1]} key positions, but there are {expected[-1]} keys")
