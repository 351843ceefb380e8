"""Persistent memory / all-attention (Sukhbaatar et al., 2019): a feed-forward layer is attention
over fixed keys and values, so replace it by learned key and value vectors that every query sees.

Taught in: 13_efficient_attention.  Shapes: B batch, H heads, T tokens, N persistent vectors per
head, D model width, Dh = D / H head width, F feed-forward width.
"""
from __future__ import annotations

import math
from typing import Any

import torch
from torch import nn

from anatomy.layers.attention import scaled_dot_product_attention
from anatomy.checks import check_integer, check_type
from anatomy.layers.feedforward import FeedForward, check_hidden_states
from anatomy.layers.masks import check_mask
from anatomy.layers.multihead import MultiHeadAttention, check_attention_inputs


def feedforward_as_attention(x: torch.Tensor, feedforward: FeedForward) -> tuple[torch.Tensor, torch.Tensor]:
    """A ReLU FeedForward written as attention: the keys are the rows of W1 (with its bias added to
    the scores), the values are the columns of W2, and ReLU stands where softmax would.
    Returns (output (B, T, D), weights (B, T, F)); equals feedforward(x) in eval mode."""
    check_hidden_states(x, check_type("feedforward", feedforward, FeedForward).linear_1.in_features)
    if not isinstance(feedforward.activation, nn.ReLU):
        raise ValueError(f"the identity holds for a ReLU feed-forward, got {type(feedforward.activation).__name__}")
    keys = feedforward.linear_1.weight  # (F, D): one key per hidden unit
    values = feedforward.linear_2.weight.T  # (F, D): one value per hidden unit
    weights = torch.relu(x @ keys.T + feedforward.linear_1.bias)  # (B, T, F), unnormalised
    return weights @ values + feedforward.linear_2.bias, weights  # (B, T, D)


class PersistentMemoryAttention(MultiHeadAttention):
    """Multi-head self-attention whose keys and values are the tokens' plus N learned persistent
    vectors per head, which every query may attend to (the all-attention layer, with no FFN after it).

    forward(x, mask=None): mask is boolean (B or 1, H or 1, T, T) over the tokens only; the
    persistent keys are always visible. Returns (output (B, T, D), weights (B, H, T, T + N)),
    the persistent keys' weights last.
    """

    def __init__(self, config: Any, num_persistent: int) -> None:
        super().__init__(config)
        check_integer("num_persistent", num_persistent)
        shape = (self.num_heads, num_persistent, self.head_dim)  # (H, N, Dh)
        self.persistent_keys = nn.Parameter(torch.randn(shape) / math.sqrt(self.head_dim))
        # values scaled like the tokens' (the paper scales keys by √Dh and values by √N, then learns them)
        self.persistent_values = nn.Parameter(torch.randn(shape) / math.sqrt(num_persistent))

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None,  # type: ignore[override]
                need_weights: bool = True) -> tuple[torch.Tensor, torch.Tensor]:
        check_attention_inputs(self, x, x, x, mask=None)  # the mask is checked below, before the memory joins it
        batch, length, _ = x.shape
        memory = self.persistent_keys.size(1)
        q = self.split_heads(self.q_proj(x))  # (B, H, T, Dh)
        k = torch.cat([self.split_heads(self.k_proj(x)), self.persistent_keys.expand(batch, -1, -1, -1)], dim=2)
        v = torch.cat([self.split_heads(self.v_proj(x)), self.persistent_values.expand(batch, -1, -1, -1)], dim=2)
        if mask is not None:  # (.., T, T) -> (B, H, T, T + N): persistent keys always allowed
            check_mask(mask, (batch, self.num_heads, length, length), x.device)
            mask = mask.expand(batch, self.num_heads, length, length)
            mask = torch.cat([mask, mask.new_ones(batch, self.num_heads, length, memory)], dim=-1)
        dropout_p = self.dropout_p if self.training else 0.0
        attended, weights = scaled_dot_product_attention(q, k, v, mask, dropout_p)  # (B, H, T, Dh), (B, H, T, T+N)
        return self.out_proj(self.merge_heads(attended)), weights  # (B, T, D)
