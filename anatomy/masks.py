"""Boolean attention masks: True means "may attend", as in F.scaled_dot_product_attention.

Taught in: 03_attention (causal and padding masks) and 06_decoder (combining them).
Shapes: B batch, H heads, Tq queries, Tk keys.
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
