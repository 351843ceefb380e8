"""The classic mistakes of cross-attention, by name: the words a student reads, a hint, and the
evidence each shows (the value or shape that gave it away). variants.py implements them on purpose.

Homework 1 (notebook 08). Shapes: B batch, H heads, Tq decoder (query) tokens, Ts encoder (source)
tokens, D model width.
"""
from __future__ import annotations

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


def head_sums(got: torch.Tensor, expected: torch.Tensor, what: str) -> str:
    rows = got.nan_to_num().sum(-1)
    return (f"your {what} sum to 1 over the {got.size(1)} heads (dim 1), and to {rows.min().item():.3f} ... "
            f"{rows.max().item():.3f} over the source tokens")


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


def empty_rows(got: torch.Tensor, expected: torch.Tensor, what: str) -> str:
    empty = int((got.nan_to_num().abs().sum(-1) == 0).sum())
    return f"{empty} whole query rows of your {what} are 0 (or NaN) with {got.size(-1)} queries and source tokens"


def shape_only(got: torch.Tensor, expected: torch.Tensor, what: str) -> str:
    return f"your {what} have shape {tuple(got.shape)}, expected {tuple(expected.shape)}"


def differs_between_calls(got: torch.Tensor, again: torch.Tensor, what: str) -> str:
    return f"two calls on the same inputs in eval mode give {what}s that differ by up to {(got - again).abs().max().item():.3f}"


MISTAKES = {
    "no_scaling": Mistake("forgot the 1/√d scaling", "divide the scores by √d, the query/key width", too_sharp_or_flat),
    "scaled_by_d": Mistake("divided by d instead of √d", "the scale is 1/√d (math.sqrt), not 1/d", too_sharp_or_flat),
    "k_T_3d": Mistake("used k.T on a 3-D tensor, which reverses all three dimensions ((B, Ts, d) -> (d, Ts, B))",
                      "transpose only the last two: k.transpose(-2, -1) (or k.mT)"),
    "softmax_dim": Mistake("softmax over the wrong dimension",
                           "take the softmax over the last dimension (the source tokens)", row_sums),
    "log_softmax": Mistake("used log_softmax instead of softmax",
                           "attention weights are probabilities: torch.softmax", negative),
    "swapped": Mistake("took Q from the encoder and K/V from the decoder",
                       "queries come from the decoder (x), keys and values from the encoder memory"),
    "no_mask": Mistake("ignored the source padding mask",
                       "set the scores of padded source tokens to -inf before the softmax", on_padding),
    "fill_zero": Mistake("filled the padded scores with 0 instead of -inf",
                         "a score of 0 still gets weight after the softmax: masked_fill(~mask, float('-inf'))", on_padding),
    "inverted_mask": Mistake("inverted the mask (masked the real tokens, kept the padding)",
                             "key_mask is True at real tokens: fill -inf where it is False", on_real_tokens),
    "additive_inverted": Mistake("added the mask with the wrong polarity (a large negative number at real tokens, 0 at padding)",
                                 "the large negative number belongs where key_mask is False", on_real_tokens),
    "mask_over_queries": Mistake("broadcast the mask over the queries instead of the source tokens",
                                 "key_mask[:, None, :] masks source tokens (columns); key_mask[:, :, None] masks "
                                 "query rows, which only fits when Tq == Ts", empty_rows),
    "causal": Mistake("applied a causal mask to cross-attention",
                      "the whole source is known before decoding: mask padding only, never the future", above_diagonal),
    "added_values": Mistake("added the weights to V instead of multiplying",
                            "the output is weights @ v: each query's weighted sum of the values", same_rows),
    "scaled_by_width": Mistake("scaled by √D, the model width, instead of √(D/H), the head width",
                               "each head attends in D/H dimensions: divide by math.sqrt(head_dim)", too_sharp_or_flat),
    "softmax_heads": Mistake("softmax over the heads axis", "the softmax runs over the source tokens, the last "
                             "dimension of (B, H, Tq, Ts), not over dim 1", head_sums),
    "self_attention": Mistake("took K and V from the decoder input (self-attention, not cross-attention)",
                              "keys and values come from k_proj(memory) and v_proj(memory)", shape_only),
    "merge": Mistake("did not merge the heads back correctly (reshape before transpose)",
                     "transpose (B, H, Tq, Dh) to (B, Tq, H, Dh) first, then reshape to (B, Tq, D)"),
    "split_no_transpose": Mistake("split the heads with view but no transpose",
                                  "view (B, T, D) as (B, T, H, Dh), then transpose(1, 2) to (B, H, T, Dh)"),
    "shared_kv": Mistake("used one projection for both K and V", "keys come from k_proj(memory), values from v_proj(memory)"),
    "no_out_proj": Mistake("left out the output projection", "apply out_proj to the merged heads"),
    "dropout_in_eval": Mistake("left dropout active at evaluation",
                               "apply dropout only when self.training (nn.Dropout does that for you)", differs_between_calls),
    "pre_ln": Mistake("normalised before each sublayer (pre-LN) instead of after it (post-LN)",
                      "post-LN means x = norm(x + sublayer(x))"),
    "norm_outside": Mistake("wrote post-LN as x + norm(sublayer(x))",
                            "the LayerNorm wraps the sum: x = norm(x + sublayer(x))"),
    "no_residual": Mistake("left out a residual connection",
                           "each sublayer's output is added to its input before the LayerNorm: norm(x + sublayer(x))"),
    "one_norm": Mistake("used one LayerNorm for all three sublayers",
                        "each sublayer has its own: layer_norm_1, layer_norm_2, layer_norm_3"),
    "no_causal": Mistake("left the causal mask out of the masked self-attention",
                         "pass self_mask to self_attn, so no position sees the ones after it"),
    "memory_is_x": Mistake("fed the decoder's own states to the cross-attention as memory",
                           "cross-attention reads the encoder output: self.cross_attn(x, memory, key_mask)"),
    "cross_before_self": Mistake("ran cross-attention before masked self-attention",
                                 "the order is masked self-attention, cross-attention, feed-forward"),
}
