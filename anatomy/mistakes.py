"""The classic mistakes of cross-attention, implemented on purpose, so a checker can recognise them.

Taught in: 08_homework_cross_attention (the checker in anatomy.homework compares a student's
answer with each of these; the one it equals is named in the feedback).
Shapes: B batch, H heads, Tq decoder (query) tokens, Ts encoder (source) tokens, D model width.
"""
from __future__ import annotations

import math

import torch

from anatomy.multihead import MultiHeadAttention

MISTAKES = {
    "no_scaling": "forgot the 1/√d scaling",
    "softmax_dim": "softmax over the wrong dimension",
    "swapped": "took Q from the encoder and K/V from the decoder",
    "no_mask": "ignored the source padding mask",
    "causal": "applied a causal mask to cross-attention",
    "merge": "did not merge the heads back correctly (reshape before transpose)",
}


def attention(q, k, v, key_mask=None, mistake: str | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Cross-attention over the last two dims, right or with one named mistake. key_mask is
    (B, Ts) with True at real source tokens; it broadcasts over any head dim."""
    scores = q @ k.transpose(-2, -1)  # (..., Tq, Ts)
    if mistake != "no_scaling":
        scores = scores / math.sqrt(q.size(-1))
    if key_mask is not None and mistake != "no_mask":
        keep = key_mask.bool().view(key_mask.size(0), *[1] * (scores.dim() - 2), key_mask.size(1))
        scores = scores.masked_fill(~keep, float("-inf"))
    if mistake == "causal":  # the seed's torch.tril(torch.ones(Tq, Ts)), wrongly used here
        future = torch.ones(q.size(-2), k.size(-2), device=q.device).tril() == 0
        scores = scores.masked_fill(future, float("-inf"))
    weights = torch.softmax(scores, dim=-2 if mistake == "softmax_dim" else -1)
    weights = torch.nan_to_num(weights)  # a row (or column) with nothing to attend to: zeros
    return weights @ v, weights


def multi_head(layer: MultiHeadAttention, x, memory, key_mask=None, mistake: str | None = None):
    """`layer`'s cross-attention from decoder states x (B, Tq, D) to memory (B, Ts, D), with one mistake."""
    if mistake == "swapped":  # then the (B, Ts) key mask no longer fits the keys: only without a mask
        x, memory, key_mask = memory, x, None
    q = layer.split_heads(layer.q_proj(x))  # (B, H, Tq, Dh)
    k = layer.split_heads(layer.k_proj(memory))  # (B, H, Ts, Dh)
    v = layer.split_heads(layer.v_proj(memory))  # (B, H, Ts, Dh)
    attended, weights = attention(q, k, v, key_mask, None if mistake == "merge" else mistake)
    if mistake == "merge":
        merged = attended.reshape(x.size(0), x.size(1), layer.embed_dim)  # positions and heads mixed up
    else:
        merged = layer.merge_heads(attended)  # (B, Tq, D)
    return layer.out_proj(merged), weights
