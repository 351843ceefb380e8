"""Checks for questions 1-3 of the cross-attention homework (notebook 08): scores, the padding mask,
a multi-head CrossAttention module. Each runs the student's answer on fresh random inputs (the seed
picks them: public tests use one, hidden tests others drawn from the instructor's secret).
Shapes: B batch, H heads, Tq decoder (query) tokens, Ts encoder (source) tokens, D model width.
"""
from __future__ import annotations

import math
from types import SimpleNamespace

import torch
import torch.nn.functional as F
from torch import nn

from anatomy.layers.attention import scaled_dot_product_attention
from anatomy.homework.cross_attention.mistakes import MISTAKES
from anatomy.homework.cross_attention.variants import attention, multi_head
from anatomy.homework.feedback import Feedback, Mistake, call, compare, load_check_weights, same, type_of
from anatomy.homework.tracing import forbid, methods
from anatomy.layers.masks import padding_mask
from anatomy.layers.multihead import AttentionHead, MultiHeadAttention, PerHeadMultiHeadAttention

LIBRARY_ATTENTION = {**methods(MultiHeadAttention, PerHeadMultiHeadAttention, AttentionHead, nn.MultiheadAttention),
                     scaled_dot_product_attention: "anatomy.scaled_dot_product_attention",
                     F.scaled_dot_product_attention: "F.scaled_dot_product_attention",
                     F.multi_head_attention_forward: "F.multi_head_attention_forward",
                     torch._native_multi_head_attention: "nn.MultiheadAttention"}
LIBRARY_ATEN = {"scaled_dot_product": "F.scaled_dot_product_attention", "multi_head_attention": "nn.MultiheadAttention"}
SQUARE = {"batch": 4, "queries": 4, "sources": 4, "width": 4}  # shape mistakes that crash elsewhere run here


def inputs(seed: int, batch: int = 2, queries: int = 3, sources: int = 5, width: int = 8):
    """Random decoder states (B, Tq, D), memory (B, Ts, D), and a (B, Ts) mask whose last row is padded."""
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(batch, queries, width, generator=generator)
    memory = torch.randn(batch, sources, width, generator=generator)
    key_mask = torch.ones(batch, sources, dtype=torch.bool)
    key_mask[-1, sources - 2:] = False
    return x, memory, key_mask


def run_yourself(answer, *args):
    """call(answer, *args), refusing any library attention it uses (even one created on the fly)."""
    with forbid(LIBRARY_ATTENTION, LIBRARY_ATEN) as seen:
        try:
            result, failure = call(answer, *args), None
        except Feedback as feedback:
            result, failure = None, feedback
    if seen:
        raise Feedback("ca_uses_library", name=seen[0])
    if failure is not None:
        raise failure
    return result


def named_crash(failure: Feedback, rerun, variants: list[tuple[Mistake, torch.Tensor, torch.Tensor]]) -> Feedback:
    """An answer that crashed, run again on square inputs: if it equals a mistake's tensor there
    (variants: (mistake, its tensor, the right one)), that mistake's feedback; else the crash."""
    if failure.message.key != "code_raised":
        return failure
    try:
        got = rerun()
    except Exception:  # it crashes there too (or returns something else): the crash is the feedback
        return failure
    for mistake, wrong, right in variants:
        if isinstance(got, torch.Tensor) and same(got, wrong):
            found = mistake.feedback(got, right, "what_result")
            return Feedback("ca_crashed_square", found.name, found=found.message)
    return failure


def check_weights(weights: torch.Tensor) -> None:
    sums = weights.sum(-1)
    if not torch.allclose(sums, torch.ones_like(sums), atol=1e-5):
        raise Feedback("ca_weights_sum", low=sums.min().item(), high=sums.max().item())


def check_scores(answer, seed: int = 0, **shape) -> None:
    """Question 1: cross_attention_scores(q (B, Tq, d), k (B, Ts, d)) -> (B, Tq, Ts)."""
    q, k, _ = inputs(seed, **shape)
    expected = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))  # (B, Tq, Ts)
    try:
        got = call(answer, q, k)
    except Feedback as failure:
        qs, ks, _ = inputs(seed, **(SQUARE | {"queries": 3}))  # k.T is (d, Ts, B): it runs when B == d == Ts
        scale = math.sqrt(qs.size(-1))
        raise named_crash(failure, lambda: call(answer, qs, ks), [
            (MISTAKES["k_T_3d"], qs @ ks.permute(2, 1, 0) / scale, qs @ ks.transpose(-2, -1) / scale)]) from None
    compare(got, expected, "what_scores", [(MISTAKES["no_scaling"], expected * math.sqrt(q.size(-1))),
                                      (MISTAKES["scaled_by_d"], expected / math.sqrt(q.size(-1))),
                                      (MISTAKES["swapped"], expected.transpose(-2, -1))])


def pair(result, what: str) -> tuple:
    if not isinstance(result, tuple) or len(result) != 2:
        raise Feedback("ca_not_pair", what=what, got=type_of(result).__name__)
    return result


def check_masked_attention(answer, seed: int = 0, **shape) -> None:
    """Question 2: masked_cross_attention(q, k, v, key_mask) -> (output (B, Tq, d), weights (B, Tq, Ts))."""
    q, memory, key_mask = inputs(seed, **shape)
    try:
        output, weights = pair(run_yourself(answer, q, memory, memory, key_mask), "masked_cross_attention")
    except Feedback as failure:
        qs, ms, mask = inputs(seed, **SQUARE)
        right = attention(qs, ms, ms, mask)[1]
        raise named_crash(failure, lambda: pair(run_yourself(answer, qs, ms, ms, mask), "it")[1], [
            (MISTAKES[name], attention(qs, ms, ms, mask, name)[1], right) for name in ("mask_over_queries", "k_T_3d")]) from None
    expected = scaled_dot_product_attention(q, memory, memory, padding_mask(key_mask)[:, 0])  # anatomy's tested attention
    names = ("no_scaling", "scaled_by_d", "softmax_dim", "log_softmax", "no_mask", "fill_zero", "inverted_mask",
             "additive_inverted", "causal", "added_values")
    variants = [(MISTAKES[name], attention(q, memory, memory, key_mask, name)) for name in names]
    compare(weights, expected[1], "what_weights", [(m, v[1]) for m, v in variants], lambda: check_weights(weights))
    compare(output, expected[0], "what_output", [(m, v[0]) for m, v in variants])


MODULE_MISTAKES = sorted([name for name in MISTAKES if name not in (  # √D first: where H = √D it equals "by d",
    "dropout_in_eval", "pre_ln", "norm_outside", "no_residual", "one_norm", "no_causal", "memory_is_x",  # and in a
    "cross_before_self", "k_T_3d", "mask_over_queries", "additive_inverted", "fill_zero")],  # module it is the likelier
    key=lambda name: name != "scaled_by_width")


def check_cross_attention_module(module_class, seed: int = 0, heads: int = 2, **shape) -> None:
    """Question 3: CrossAttention(config) with q_proj, k_proj, v_proj, out_proj;
    forward(x, memory, key_mask) -> (output (B, Tq, D), weights (B, H, Tq, Ts))."""
    x, memory, key_mask = inputs(seed, **shape)
    config = SimpleNamespace(hidden_size=x.size(-1), num_attention_heads=heads)
    torch.manual_seed(seed)
    theirs = run_yourself(module_class, config)
    if not isinstance(theirs, nn.Module):
        raise Feedback("ca_not_module", what="CrossAttention", got=type_of(theirs).__name__)
    theirs.eval()
    library = [type(m).__name__ for m in theirs.modules() if isinstance(m, (MultiHeadAttention, nn.MultiheadAttention))]
    if library:
        raise Feedback("ca_uses_library", name=library[0])
    missing = {"q_proj", "k_proj", "v_proj", "out_proj"} - {name for name, _ in theirs.named_children()}
    if missing:
        raise Feedback("ca_needs_linears", missing=sorted(missing))
    torch.manual_seed(seed)  # the check's own random weights, loaded into yours: zero or made-up weights cannot match
    reference = MultiHeadAttention(config).eval()
    load_check_weights(theirs, reference.state_dict())
    for mask in (None, key_mask):  # without padding first: a swap of Q and K/V shows in the shape
        with torch.no_grad():
            output, weights = pair(run_yourself(theirs, x, memory, mask), "forward")
            again = pair(run_yourself(theirs, x, memory, mask), "forward")[0]
            expected = reference(x, memory, mask=None if mask is None else padding_mask(mask))
            variants = [(MISTAKES[name], multi_head(reference, x, memory, mask, name)) for name in MODULE_MISTAKES]
        if isinstance(output, torch.Tensor) and isinstance(again, torch.Tensor) and not torch.equal(output, again):
            raise MISTAKES["dropout_in_eval"].feedback(output, again, "what_output") from None
        compare(weights, expected[1], "what_weights", [(m, v[1]) for m, v in variants], lambda: check_weights(weights))
        compare(output, expected[0], "what_output", [(m, v[0]) for m, v in variants])
