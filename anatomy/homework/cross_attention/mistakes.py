"""The classic mistakes of cross-attention, by name: the words a student reads and a hint (catalogue
keys, anatomy.homework.messages.cross_attention), and the evidence each shows (the value or shape that
gave it away). variants.py implements them on purpose.

Homework 1 (notebook 08). Shapes: B batch, H heads, Tq decoder (query) tokens, Ts encoder (source)
tokens, D model width.
"""
from __future__ import annotations

import torch

from anatomy.homework.feedback import Mistake, first_difference
from anatomy.homework.messages import Message
from anatomy.homework.messages.cross_attention_mistakes import MISTAKE_KEYS


def too_sharp_or_flat(got: torch.Tensor, expected: torch.Tensor, what: Message) -> Message:
    if what.key.endswith("weights"):
        return Message("ca_peak", what=what, got=got.max().item(), expected=expected.max().item())
    if what.key.endswith("scores"):
        return Message("ca_ratio", what=what, ratio=(got.norm() / expected.norm()).item())
    return first_difference(got, expected, what)


def row_sums(got: torch.Tensor, expected: torch.Tensor, what: Message) -> Message:
    sums = got.nan_to_num().sum(-1)
    return Message("ca_row_sums", low=sums.min().item(), high=sums.max().item())


def head_sums(got: torch.Tensor, expected: torch.Tensor, what: Message) -> Message:
    rows = got.nan_to_num().sum(-1)
    return Message("ca_head_sums", what=what, heads=got.size(1), low=rows.min().item(), high=rows.max().item())


def negative(got: torch.Tensor, expected: torch.Tensor, what: Message) -> Message:
    return Message("ca_negative", what=what, low=got[got.isfinite()].min().item())


def on_padding(got: torch.Tensor, expected: torch.Tensor, what: Message) -> Message:
    return Message("ca_on_padding", what=what, high=got.nan_to_num()[expected == 0].abs().max().item())


def on_real_tokens(got: torch.Tensor, expected: torch.Tensor, what: Message) -> Message:
    real = got.nan_to_num()[expected > 0]
    return Message("ca_on_real", what=what, high=got.nan_to_num()[expected == 0].abs().max().item(),
                   real=real.abs().max().item())


def above_diagonal(got: torch.Tensor, expected: torch.Tensor, what: Message) -> Message:
    return Message("ca_above_diagonal", what=what, expected=expected[got.nan_to_num() == 0].max().item())


def same_rows(got: torch.Tensor, expected: torch.Tensor, what: Message) -> Message:
    spread = (got - got[..., :1, :]).abs().max().item()
    return Message("ca_same_rows", queries=got.size(-2), what=what, spread=spread)


def empty_rows(got: torch.Tensor, expected: torch.Tensor, what: Message) -> Message:
    empty = int((got.nan_to_num().abs().sum(-1) == 0).sum())
    return Message("ca_empty_rows", empty=empty, what=what, size=got.size(-1))


def shape_only(got: torch.Tensor, expected: torch.Tensor, what: Message) -> Message:
    return Message("shape_differs", what=what, got=tuple(got.shape), expected=tuple(expected.shape))


def differs_between_calls(got: torch.Tensor, again: torch.Tensor, what: Message) -> Message:
    return Message("ca_between_calls", what=what, gap=(got - again).abs().max().item())


EVIDENCE = {"no_scaling": too_sharp_or_flat, "scaled_by_d": too_sharp_or_flat, "softmax_dim": row_sums,
            "log_softmax": negative, "no_mask": on_padding, "fill_zero": on_padding, "inverted_mask": on_real_tokens,
            "additive_inverted": on_real_tokens, "mask_over_queries": empty_rows, "causal": above_diagonal,
            "added_values": same_rows, "scaled_by_width": too_sharp_or_flat, "softmax_heads": head_sums,
            "self_attention": shape_only, "dropout_in_eval": differs_between_calls}
# each mistake's words and hint are the catalogue's ca_<name> and ca_<name>_hint (messages/cross_attention.py)
MISTAKES = {name: Mistake(*keys, EVIDENCE.get(name, first_difference)) for name, keys in MISTAKE_KEYS.items()}
