"""The classic mistakes of cross-attention, implemented on purpose, so a check can recognise them.

Homework 1 (notebook 08). A check compares the student's tensor with each of these; the one it
equals is named, with the value or shape that gave it away.
Shapes: B batch, H heads, Tq decoder (query) tokens, Ts encoder (source) tokens, D model width.
"""
from __future__ import annotations

import math

import torch

from anatomy.homework.feedback import Mistake, first_difference


def too_sharp_or_flat(got: torch.Tensor, expected: torch.Tensor, what: str) -> str:
    if what.endswith("weights"):
        return f"your {what} peak at {got.max().item():.3f}, expected {expected.max().item():.3f}"
    if what.endswith("scores"):
        return f"your {what} are {(got.norm() / expected.norm()).item():.3f} times the expected ones"
    return first_difference(got, expected, what)


def row_sums(got: torch.Tensor, expected: torch.Tensor, what: str) -> str:
    sums = got.nan_to_num().sum(-1)
    return f"your rows sum to {sums.min().item():.3f} ... {sums.max().item():.3f} instead of 1"


def negative(got: torch.Tensor, expected: torch.Tensor, what: str) -> str:
    return f"your {what} go down to {got[got.isfinite()].min().item():.3f}; a probability is never negative"


def on_padding(got: torch.Tensor, expected: torch.Tensor, what: str) -> str:
    return f"your {what} reach {got.nan_to_num()[expected == 0].abs().max().item():.3f} on padded source tokens"


def on_real_tokens(got: torch.Tensor, expected: torch.Tensor, what: str) -> str:
    real = got.nan_to_num()[expected > 0]
    return (f"your {what} reach {got.nan_to_num()[expected == 0].abs().max().item():.3f} on padded source "
            f"tokens and at most {real.abs().max().item():.3f} on real ones")


def above_diagonal(got: torch.Tensor, expected: torch.Tensor, what: str) -> str:
    return (f"your {what} are 0 above the diagonal, where they should reach "
            f"{expected[got.nan_to_num() == 0].max().item():.3f}")


def same_rows(got: torch.Tensor, expected: torch.Tensor, what: str) -> str:
    spread = (got - got[..., :1, :]).abs().max().item()
    return f"all {got.size(-2)} queries get the same {what} row (rows differ by at most {spread:.1e})"


def differs_between_calls(got: torch.Tensor, again: torch.Tensor, what: str) -> str:
    return f"two calls on the same inputs in eval mode give {what}s that differ by up to {(got - again).abs().max().item():.3f}"


MISTAKES = {
    "no_scaling": Mistake("forgot the 1/√d scaling", "divide the scores by √d, the query/key width",
                          too_sharp_or_flat),
    "scaled_by_d": Mistake("divided by d instead of √d", "the scale is 1/√d (math.sqrt), not 1/d", too_sharp_or_flat),
    "softmax_dim": Mistake("softmax over the wrong dimension",
                           "take the softmax over the last dimension (the source tokens)", row_sums),
    "log_softmax": Mistake("used log_softmax instead of softmax",
                           "attention weights are probabilities: torch.softmax", negative),
    "swapped": Mistake("took Q from the encoder and K/V from the decoder",
                       "queries come from the decoder (x), keys and values from the encoder memory"),
    "no_mask": Mistake("ignored the source padding mask",
                       "set the scores of padded source tokens to -inf before the softmax", on_padding),
    "inverted_mask": Mistake("inverted the mask (masked the real tokens, kept the padding)",
                             "key_mask is True at real tokens: fill -inf where it is False", on_real_tokens),
    "causal": Mistake("applied a causal mask to cross-attention",
                      "the whole source is known before decoding: mask padding only, never the future",
                      above_diagonal),
    "added_values": Mistake("added the weights to V instead of multiplying",
                            "the output is weights @ v: each query's weighted sum of the values", same_rows),
    "merge": Mistake("did not merge the heads back correctly (reshape before transpose)",
                     "transpose (B, H, Tq, Dh) to (B, Tq, H, Dh) first, then reshape to (B, Tq, D)"),
    "split_no_transpose": Mistake("split the heads with view but no transpose",
                                  "view (B, T, D) as (B, T, H, Dh), then transpose(1, 2) to (B, H, T, Dh)"),
    "shared_kv": Mistake("used one projection for both K and V",
                         "keys come from k_proj(memory), values from v_proj(memory)"),
    "no_out_proj": Mistake("left out the output projection", "apply out_proj to the merged heads"),
    "dropout_in_eval": Mistake("left dropout active at evaluation",
                               "apply dropout only when self.training (nn.Dropout does that for you)",
                               differs_between_calls),
    "pre_ln": Mistake("normalised before each sublayer (pre-LN) instead of after it (post-LN)",
                      "post-LN means x = norm(x + sublayer(x))"),
    "no_residual": Mistake("left out a residual connection",
                           "each sublayer's output is added to its input before the LayerNorm: norm(x + sublayer(x))"),
    "cross_before_self": Mistake("ran cross-attention before masked self-attention",
                                 "the order is masked self-attention, cross-attention, feed-forward"),
}


def attention(q, k, v, key_mask=None, mistake: str | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Cross-attention over the last two dims, right or with one named mistake. key_mask is
    (B, Ts) with True at real source tokens; it broadcasts over any head dim."""
    scores = q @ k.transpose(-2, -1)  # (..., Tq, Ts)
    if mistake == "scaled_by_d":
        scores = scores / q.size(-1)
    elif mistake != "no_scaling":
        scores = scores / math.sqrt(q.size(-1))
    if key_mask is not None and mistake != "no_mask":
        keep = key_mask.bool().view(key_mask.size(0), *[1] * (scores.dim() - 2), key_mask.size(1))
        scores = scores.masked_fill(keep if mistake == "inverted_mask" else ~keep, float("-inf"))
    if mistake == "causal":  # torch.tril(torch.ones(Tq, Ts)), wrongly used here
        scores = scores.masked_fill(torch.ones(q.size(-2), k.size(-2)).tril() == 0, float("-inf"))
    dim = -2 if mistake == "softmax_dim" else -1
    weights = torch.log_softmax(scores, dim) if mistake == "log_softmax" else torch.softmax(scores, dim)
    if mistake == "added_values":
        return (weights[..., None] + v[..., None, :, :]).sum(-2), weights
    return weights @ v, weights


def multi_head(layer, x, memory, key_mask=None, mistake: str | None = None):
    """`layer`'s (an anatomy.MultiHeadAttention) cross-attention from x (B, Tq, D) to memory (B, Ts, D),
    with one mistake."""
    if mistake == "swapped":  # then the (B, Ts) key mask no longer fits the keys: only without a mask
        x, memory, key_mask = memory, x, None
    split = layer.split_heads
    if mistake == "split_no_transpose":
        def split(t):
            return t.reshape(t.size(0), layer.num_heads, t.size(1), layer.head_dim)  # heads and positions mixed
    q, k = split(layer.q_proj(x)), split(layer.k_proj(memory))  # (B, H, T, Dh)
    v = split((layer.k_proj if mistake == "shared_kv" else layer.v_proj)(memory))  # (B, H, Ts, Dh)
    attended, weights = attention(q, k, v, key_mask, mistake)  # (B, H, Tq, Dh)
    if mistake == "merge":
        merged = attended.reshape(x.size(0), x.size(1), layer.embed_dim)  # positions and heads mixed up
    else:
        merged = layer.merge_heads(attended)  # (B, Tq, D)
    return (merged if mistake == "no_out_proj" else layer.out_proj(merged)), weights


def decoder_layer(layer, x, memory, self_mask, memory_mask, mistake: str, skip: int = -1) -> torch.Tensor:
    """`layer`'s (an anatomy.TransformerDecoderLayer) output with one mistake; for no_residual,
    `skip` (0, 1, 2) is the sublayer whose residual is left out."""
    norms = (layer.layer_norm_1, layer.layer_norm_2, layer.layer_norm_3)
    sublayers = [lambda h: layer.self_attn(h, mask=self_mask)[0],
                 lambda h: layer.cross_attn(h, memory, mask=memory_mask)[0], layer.feed_forward]
    if mistake == "cross_before_self":
        sublayers[:2] = sublayers[1::-1]
    for i, (norm, sublayer) in enumerate(zip(norms, sublayers)):
        if mistake == "pre_ln":
            x = x + sublayer(norm(x))
        else:
            x = norm(sublayer(x) if i == skip else x + sublayer(x))
    return x
