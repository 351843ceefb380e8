"""Grouped-query attention: fewer key-value heads than query heads, each shared by a group of queries.

Taught in: 12_modern_block.  Shapes: B batch, H query heads, Hkv key-value heads, T new tokens,
Tk all keys (cached + new), D model width, Dh head width.
Hkv = H is 04's multi-head attention; Hkv = 1 is multi-query attention. The KV cache stores only
Hkv heads, so it shrinks by H / Hkv. Queries and keys are rotated (RoPE) before they meet.
"""
from __future__ import annotations

import torch
from torch import nn

from anatomy.layers.attention import scaled_dot_product_attention
from anatomy.checks import check_number
from anatomy.layers.config import check_divisible
from anatomy.layers.feedforward import check_hidden_states
from anatomy.layers.kv_cache import LayerCache
from anatomy.layers.rotary import apply_rotary


class GroupedQueryAttention(nn.Module):
    def __init__(self, hidden_size: int, num_heads: int, num_kv_heads: int, rope_base: float = 10000.0) -> None:
        super().__init__()
        check_divisible(hidden_size, num_heads)
        check_number("rope_base", rope_base, above=0)
        if not isinstance(num_kv_heads, int) or num_kv_heads < 1 or num_heads % num_kv_heads:
            raise ValueError(f"num_kv_heads ({num_kv_heads}) must divide num_heads ({num_heads}): "
                             f"each key-value head serves a whole group of query heads")
        self.num_heads, self.num_kv_heads = num_heads, num_kv_heads
        self.head_dim, self.rope_base = hidden_size // num_heads, rope_base
        self.q_proj = nn.Linear(hidden_size, num_heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(hidden_size, num_kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(hidden_size, num_kv_heads * self.head_dim, bias=False)
        self.out_proj = nn.Linear(num_heads * self.head_dim, hidden_size, bias=False)

    def split_heads(self, x: torch.Tensor, heads: int) -> torch.Tensor:
        return x.view(x.size(0), x.size(1), heads, self.head_dim).transpose(1, 2)  # (B, heads, T, Dh)

    def forward(self, x: torch.Tensor, positions: torch.Tensor, mask: torch.Tensor | None = None,
                cache: LayerCache | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """x (B, T, D), positions (B, T). Returns (output (B, T, D), weights (B, H, T, Tk))."""
        check_hidden_states(x, self.q_proj.in_features, rank=3)
        q = apply_rotary(self.split_heads(self.q_proj(x), self.num_heads), positions, self.rope_base)  # (B, H, T, Dh)
        k = apply_rotary(self.split_heads(self.k_proj(x), self.num_kv_heads), positions, self.rope_base)  # (B, Hkv, T, Dh)
        v = self.split_heads(self.v_proj(x), self.num_kv_heads)  # (B, Hkv, T, Dh)
        if cache is not None:
            k, v = cache.update(k, v)  # (B, Hkv, Tk, Dh): the cache keeps the small version
        group = self.num_heads // self.num_kv_heads
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)  # (B, H, Tk, Dh)
        attended, weights = scaled_dot_product_attention(q, k, v, mask)  # (B, H, T, Dh)
        merged = attended.transpose(1, 2).reshape(x.size(0), x.size(1), -1)  # (B, T, H x Dh)
        return self.out_proj(merged), weights
