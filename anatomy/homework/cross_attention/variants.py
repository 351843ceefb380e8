"""The classic mistakes of cross-attention, implemented on purpose, so a check can recognise them
(their names and words are in mistakes.py). Homework 1 (notebook 08).

Shapes: B batch, H heads, Tq decoder (query) tokens, Ts encoder (source) tokens, D model width.
"""
from __future__ import annotations

import math

import torch


def attention(q, k, v, key_mask=None, mistake: str | None = None, scale: float | None = None):
    """Cross-attention over the last two dims, right or with one named mistake. key_mask is
    (B, Ts) with True at real source tokens; it broadcasts over any head dim."""
    if mistake == "k_T_3d":
        k = k.permute(*range(k.dim() - 1, -1, -1))  # what .T does: every dim reversed
    scores = q @ (k if mistake == "k_T_3d" else k.transpose(-2, -1))  # (..., Tq, Ts)
    if mistake == "scaled_by_d":
        scores = scores / q.size(-1)
    elif mistake != "no_scaling":
        scores = scores / (scale or math.sqrt(q.size(-1)))
    if key_mask is not None and mistake != "no_mask":
        keep = key_mask.bool().view(key_mask.size(0), *[1] * (scores.dim() - 2), key_mask.size(1))
        if mistake == "mask_over_queries":
            keep = keep.transpose(-2, -1)
        if mistake == "additive_inverted":
            scores = scores + keep.float() * -1e9
        else:
            fill = 0.0 if mistake == "fill_zero" else float("-inf")
            scores = scores.masked_fill(keep if mistake == "inverted_mask" else ~keep, fill)
    if mistake == "causal":  # torch.tril(torch.ones(Tq, Ts)), wrongly used here
        scores = scores.masked_fill(torch.ones(q.size(-2), k.size(-2)).tril() == 0, float("-inf"))
    dim = -2 if mistake == "softmax_dim" else 1 if mistake == "softmax_heads" else -1
    weights = torch.log_softmax(scores, dim) if mistake == "log_softmax" else torch.softmax(scores, dim)
    if mistake == "added_values":
        return (weights[..., None] + v[..., None, :, :]).sum(-2), weights
    return weights @ v, weights


def multi_head(layer, x, memory, key_mask=None, mistake: str | None = None):
    """`layer`'s (an anatomy.MultiHeadAttention) cross-attention from x (B, Tq, D) to memory (B, Ts, D),
    with one mistake."""
    if mistake == "swapped":  # then the (B, Ts) key mask no longer fits the keys: only without a mask
        x, memory, key_mask = memory, x, None
    if mistake == "self_attention":
        memory, key_mask = x, None
    split = layer.split_heads
    if mistake == "split_no_transpose":
        def split(t):
            return t.reshape(t.size(0), layer.num_heads, t.size(1), layer.head_dim)  # heads and positions mixed
    q, k = split(layer.q_proj(x)), split(layer.k_proj(memory))  # (B, H, T, Dh)
    v = split((layer.k_proj if mistake == "shared_kv" else layer.v_proj)(memory))  # (B, H, Ts, Dh)
    scale = math.sqrt(layer.embed_dim) if mistake == "scaled_by_width" else None
    attended, weights = attention(q, k, v, key_mask, mistake, scale)  # (B, H, Tq, Dh)
    if mistake == "merge":
        merged = attended.reshape(x.size(0), x.size(1), layer.embed_dim)  # positions and heads mixed up
    else:
        merged = layer.merge_heads(attended)  # (B, Tq, D)
    return (merged if mistake == "no_out_proj" else layer.out_proj(merged)), weights


def decoder_layer(layer, x, memory, self_mask, memory_mask, mistake: str, which: int = 0) -> torch.Tensor:
    """`layer`'s (an anatomy.TransformerDecoderLayer) output with one mistake. `which` (0, 1, 2) picks
    the sublayer whose residual is left out (no_residual), the LayerNorm used three times (one_norm);
    for cross_before_self, 1 means each LayerNorm moved with its sublayer."""
    norms = [layer.layer_norm_1, layer.layer_norm_2, layer.layer_norm_3]
    if mistake == "one_norm":
        norms = [norms[which]] * 3
    self_mask = None if mistake == "no_causal" else self_mask
    memory = x if mistake == "memory_is_x" else memory
    sublayers = [lambda h: layer.self_attn(h, mask=self_mask)[0],
                 lambda h: layer.cross_attn(h, h if mistake == "memory_is_x" else memory, mask=memory_mask)[0],
                 layer.feed_forward]
    if mistake == "cross_before_self":
        sublayers[:2] = sublayers[1::-1]
        norms[:2] = norms[1::-1] if which == 1 else norms[:2]
    for i, (norm, sublayer) in enumerate(zip(norms, sublayers)):
        if mistake == "pre_ln":
            x = x + sublayer(norm(x))
        elif mistake == "norm_outside":
            x = x + norm(sublayer(x))
        else:
            x = norm(sublayer(x) if mistake == "no_residual" and i == which else x + sublayer(x))
    return x
