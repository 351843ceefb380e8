"""The code of each planted bug of homework 3 (notebook 19_homework_attention_tests): {mutant name: {"Class.step":
a function with that step's arguments}}, which `made` (for subject.build) puts in place of the correct step.
A function here must not close over anything (`made` rebuilds it from its code alone, in subject.py's
globals, under the correct step's names), so what a test receives holds no trace of which bug runs but the
code itself. Sent to the grader's child as source, before subject.py (plan.py, shipping.SUBSTITUTES).
mutants.py names the question and category of each; an equivalent mutant ("eq_...") changes the code and
keeps the behaviour.
"""
from __future__ import annotations

import math
from types import FunctionType

import torch


def cross_causal(self, memory_mask, length, sources):
    causal = self.causal(length, max(length, sources))[:, -sources:]  # (Tq, Ts): queries see the last Ts only
    return causal if memory_mask is None else memory_mask[:, None, None, :] & causal


VARIANTS: dict[str, dict] = {
    "no_scale": {"Attention.scores": lambda self, query, key: query @ key.transpose(-2, -1)},
    "scale_by_d": {"Attention.scores": lambda self, query, key: query @ key.transpose(-2, -1) / query.size(-1)},
    "scale_by_keys": {"Attention.scores": lambda self, query, key:
                      query @ key.transpose(-2, -1) / math.sqrt(key.size(-2))},
    "softmax_dim": {"Attention.normalise": lambda self, scores: torch.softmax(scores, dim=-2)},
    "mask_inverted": {"Attention.allowed": lambda self, mask: ~mask},
    "mask_fill_zero": {"Attention.fill": lambda self, scores: 0.0},
    "mask_ignored": {"Attention.allowed": lambda self, mask: None},
    "padded_rows_nan": {"Attention.zero_masked": lambda self, weights, allowed: weights},
    "values_are_keys": {"Attention.mix": lambda self, weights, key, value: weights @ key},
    "causal_excludes_self": {"CausalMask.band": lambda self, num_queries, num_keys, offset:
                             torch.ones(num_queries, num_keys, dtype=torch.bool).tril(offset - 1)},
    "causal_sees_next": {"CausalMask.band": lambda self, num_queries, num_keys, offset:
                         torch.ones(num_queries, num_keys, dtype=torch.bool).tril(offset + 1)},
    "causal_transposed": {"CausalMask.band": lambda self, num_queries, num_keys, offset:
                          torch.ones(num_queries, num_keys, dtype=torch.bool).triu(offset)},
    "causal_no_offset": {"CausalMask.band": lambda self, num_queries, num_keys, offset:
                         torch.ones(num_queries, num_keys, dtype=torch.bool).tril(0)},
    "split_no_transpose": {"MultiHeadAttention.split": lambda self, x:
                           x.reshape(x.size(0), self.num_heads, x.size(1), self.head_dim)},
    "merge_no_transpose": {"MultiHeadAttention.merge": lambda self, x: x.reshape(x.size(0), x.size(2), -1)},
    "scale_by_d_model": {"MultiHeadAttention.scaled_query": lambda self, q: q / math.sqrt(self.num_heads)},
    "no_output_projection": {"MultiHeadAttention.projected": lambda self, out: out},
    "key_uses_query_projection": {"MultiHeadAttention.key_projection": lambda self: self.q_proj},
    "self_not_causal": {"DecoderLayer.self_mask": lambda self, length: None},
    "cross_from_x": {"DecoderLayer.source": lambda self, x, memory: x},
    "cross_mask_ignored": {"DecoderLayer.cross_mask": lambda self, memory_mask, length, sources: None},
    "cross_causal": {"DecoderLayer.cross_mask": cross_causal},
    "cache_overwrites": {"KVCache.grown": lambda self, held, new: new},
    "cache_wrong_axis": {"KVCache.grown": lambda self, held, new: torch.cat([held, new], dim=1)},
    "cache_values_are_keys": {"KVCache.stored": lambda self, keys, values: (keys, keys)},
    "cache_length_after_update": {"MultiHeadAttention.past_of": lambda self, past, cache: len(cache)},
    "eq_scale_query_first": {"Attention.scores": lambda self, query, key:
                             (query / math.sqrt(query.size(-1))) @ key.transpose(-2, -1)},
    "eq_mask_finfo_min": {"Attention.fill": lambda self, scores: torch.finfo(scores.dtype).min},
    "eq_causal_arange": {"CausalMask.band": lambda self, num_queries, num_keys, offset:
                         torch.arange(num_keys)[None, :] <= torch.arange(num_queries)[:, None] + offset},
    "eq_merge_permute": {"MultiHeadAttention.merge": lambda self, x: x.permute(0, 2, 1, 3).flatten(2)},
}


def made(base: type, bug: str | None, **links: object) -> type:
    """A fresh subclass of `base` holding every step of `base` as a new function: the bug's code where it
    replaces that step, else the correct code; names, docstrings, module and globals always `base`'s."""
    steps = {}
    for name, correct in vars(base).items():
        if isinstance(correct, FunctionType) and not name.startswith("__"):
            code = VARIANTS.get(bug, {}).get(f"{base.__name__}.{name}", correct).__code__
            step = FunctionType(code, correct.__globals__, correct.__name__, correct.__defaults__)
            step.__qualname__, step.__doc__ = correct.__qualname__, correct.__doc__
            steps[name] = step
    return type(base.__name__, (base,), {"__module__": base.__module__, "__qualname__": base.__qualname__,
                                         "__doc__": base.__doc__, **steps, **links})
