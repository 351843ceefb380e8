"""Rotary position embeddings (RoPE): rotate each query and key by an angle proportional to its position.

Taught in: 12_modern_block.  Shapes: B batch, H heads, T tokens, Dh head width (even).
Notebook 02 showed that moving the sinusoidal code from position p to p + k is a fixed rotation of
each pair of coordinates by k x frequency_i. RoPE applies that rotation to q and k themselves: pair
(2i, 2i + 1) of the vector at position m turns by m x frequency_i. Rotations compose, so the dot
product of a query at m and a key at n sees only the difference: q·k depends on m - n alone.
"""
from __future__ import annotations

import torch

from anatomy.checks import check_tensor
from anatomy.checks import check_integer, check_number


def rotary_frequencies(head_dim: int, base: float = 10000.0) -> torch.Tensor:
    """frequency_i = base^(-2i / Dh) for the Dh/2 pairs: the same frequencies as notebook 02's sinusoids."""
    if not isinstance(head_dim, int) or head_dim <= 0 or head_dim % 2:
        raise ValueError(f"head_dim must be a positive even number, got {head_dim}")
    check_number("base", base, above=0, hint=" (rope_theta, e.g. 10000.0)")
    return base ** (-torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim)  # (Dh/2,)


def apply_rotary(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    """Rotate pair (2i, 2i + 1) of every vector by position x frequency_i.
    x: (B, H, T, Dh); positions: (B, T) or (T,) integer positions. Returns the same shape as x."""
    positions = check_rotary_inputs(x, positions)  # (B or 1, T)
    frequencies = rotary_frequencies(x.size(-1), base).to(x.device, x.dtype)  # float32, as HF's Llama, unless x is float64
    angles = positions[:, None, :, None].to(x.dtype) * frequencies  # (B, 1, T, Dh/2)
    cos, sin = angles.cos(), angles.sin()
    even, odd = x[..., 0::2], x[..., 1::2]  # (B, H, T, Dh/2) each: the two coordinates of every pair
    rotated = torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1)  # (B, H, T, Dh/2, 2)
    return rotated.flatten(-2)  # (B, H, T, Dh), pairs back in place


def check_rotary_inputs(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    """Positions as (B or 1, T), once x is (B, H, T, Dh) and positions give one integer per token."""
    if not isinstance(x, torch.Tensor) or x.dim() != 4 or not x.is_floating_point():
        raise ValueError(f"x must be a floating-point (B, H, T, Dh) tensor, got shape {tuple(getattr(x, 'shape', ()))}; "
                         "split (B, T, D) hidden states into heads first: x.view(B, T, H, Dh).transpose(1, 2)")
    if not isinstance(positions, torch.Tensor) or positions.is_floating_point() or positions.dtype == torch.bool:
        raise ValueError(f"positions must be an integer tensor, (T,) or (B, T), got {getattr(positions, 'dtype', positions)!r}")
    positions = positions[None] if positions.dim() == 1 else positions  # (1, T)
    if positions.dim() != 2 or positions.size(1) != x.size(-2) or positions.size(0) not in (1, x.size(0)):
        raise ValueError(f"positions must have one entry per token, (T,) = ({x.size(-2)},) or (B, T) = "
                         f"{(x.size(0), x.size(-2))}, got shape {tuple(positions.shape)}")
    return positions


def pairs_from_halves(weight: torch.Tensor, num_heads: int) -> torch.Tensor:
    """Hugging Face's Llama pairs coordinate i with i + Dh/2 (rotate_half); we pair 2i with 2i + 1.
    Reorder the rows of a q_proj or k_proj weight (H x Dh, D) so that our pairs get HF's halves."""
    check_tensor("weight", weight, rank=2, floating=True, shape="(H x Dh, D)")
    check_integer("num_heads", num_heads)
    if weight.dim() != 2 or weight.size(0) % num_heads or weight.size(0) // num_heads % 2:
        raise ValueError(f"weight must be (H x Dh, D) with H = {num_heads} heads of an even width Dh, "
                         f"got shape {tuple(weight.shape)}")
    rows, width = weight.shape
    head_dim = rows // num_heads
    halves = weight.view(num_heads, 2, head_dim // 2, width)  # (H, first/second half, Dh/2, D)
    return halves.transpose(1, 2).reshape(rows, width)  # row 2i <- i, row 2i + 1 <- i + Dh/2
