"""Homework 1, cross-attention (notebook 08): the graded checks a master notebook's test cells call.

    from anatomy.homework import cross_attention as hw
    hw.check_scores(cross_attention_scores, seed=0)                          # q1
    hw.check_masked_attention(masked_cross_attention, seed=0)               # q2
    hw.check_cross_attention_module(CrossAttention, seed=0)                 # q3
    hw.check_decoder_layer(MyDecoderLayer, CrossAttention, seed=0)          # q4
    hw.check_translations(swap_in, MyDecoderLayer, CrossAttention, seed=0)  # q5

Each prints its feedback (nothing when right); `.feedback(...)` returns it, `.verdict(...)` the
Feedback with the mistake's name. `inputs(seed)` gives an example of the inputs; `MISTAKES` lists
the named mistakes (mistakes.py), implemented on purpose in variants.py.
"""
from anatomy.homework import graded
from anatomy.homework.cross_attention import checks, model_checks, translations
from anatomy.homework.cross_attention.checks import inputs
from anatomy.homework.cross_attention.mistakes import MISTAKES

check_scores = graded(checks.check_scores)
check_masked_attention = graded(checks.check_masked_attention)
check_cross_attention_module = graded(checks.check_cross_attention_module)
check_decoder_layer = graded(model_checks.check_decoder_layer)
check_translations = graded(translations.check_translations)

__all__ = ["MISTAKES", "check_cross_attention_module", "check_decoder_layer", "check_masked_attention",
           "check_scores", "check_translations", "inputs"]
