"""The mutants of homework 3 (notebook 19_homework_attention_tests): each a bug real attention code
has (its code in variants.py, planted by subject.build), with the question whose tests must catch it and
the category the feedback names (never the code). The list is public (hw.MUTANTS, for practice); what a
test is not told is which of them it runs against, and in the grader it can keep no earlier outputs to
infer it from (mutation.py). Equivalent mutants change the code, not the behaviour: a test that
fails one compares something the specification leaves open (float rounding, a construction).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Mutant:
    name: str
    question: str  # whose tests must catch it; equivalent ones: "" (every question's tests must pass them)
    category: str  # a key of anatomy.homework.messages.CATALOGUE: what the feedback names
    equivalent: bool = False


SCALING, MASKING, PADDED, SOFTMAX, VALUES = "cat_scaling", "cat_masking", "cat_padded_rows", "cat_softmax_axis", "cat_values"
CAUSAL, OFFSET, HEADS, PROJECTION = "cat_causal", "cat_position_offset", "cat_heads", "cat_projection"
CROSS, CACHE, PADDED_SOURCE, CROSS_CAUSAL = "cat_cross_source", "cat_cache", "cat_padded_source", "cat_cross_causal"

MUTANTS = tuple(Mutant(*row) for row in (
    ("no_scale", "q1", SCALING), ("scale_by_d", "q1", SCALING), ("scale_by_keys", "q1", SCALING),
    ("softmax_dim", "q1", SOFTMAX), ("mask_inverted", "q1", MASKING), ("mask_fill_zero", "q1", MASKING),
    ("mask_ignored", "q1", MASKING), ("padded_rows_nan", "q1", PADDED), ("values_are_keys", "q1", VALUES),
    ("causal_excludes_self", "q2", CAUSAL), ("causal_sees_next", "q2", CAUSAL), ("causal_transposed", "q2", CAUSAL),
    ("causal_no_offset", "q2", OFFSET),
    ("split_no_transpose", "q3", HEADS), ("merge_no_transpose", "q3", HEADS), ("scale_by_d_model", "q3", SCALING),
    ("no_output_projection", "q3", PROJECTION), ("key_uses_query_projection", "q3", PROJECTION),
    ("self_not_causal", "q4", CAUSAL), ("cross_from_x", "q4", CROSS), ("cross_mask_ignored", "q4", PADDED_SOURCE),
    ("cross_causal", "q4", CROSS_CAUSAL),
    ("cache_overwrites", "q5", CACHE), ("cache_wrong_axis", "q5", CACHE), ("cache_values_are_keys", "q5", CACHE),
    ("cache_length_after_update", "q5", OFFSET),
)) + tuple(Mutant(name, "", "cat_equivalent", True) for name in (
    "eq_scale_query_first", "eq_mask_finfo_min", "eq_causal_arange", "eq_merge_permute"))

QUESTIONS = {"q1": "attention", "q2": "causal_mask", "q3": "MultiHeadAttention", "q4": "DecoderLayer", "q5": "KVCache"}
