"""Checks for the homework's last steps: the student's decoder layer, alone and inside a trained model.

Taught in: 08_homework_cross_attention (questions 4 and 5; the attention checks are in anatomy.homework).
Shapes: B batch, Tq decoder tokens, Ts source tokens, D model width.
"""
from __future__ import annotations

from types import SimpleNamespace

import torch

from anatomy.decoder import TransformerDecoderLayer
from anatomy.homework import call, explain, inputs
from anatomy.masks import causal_mask, padding_mask

def check_decoder_layer(layer_class, seed: int = 0, heads: int = 2, **shape) -> None:
    """Question 4: a post-LN decoder layer, a drop-in for anatomy.TransformerDecoderLayer."""
    x, memory, key_mask = inputs(seed, **shape)
    config = SimpleNamespace(hidden_size=x.size(-1), num_attention_heads=heads, intermediate_size=16,
                             hidden_act="relu", hidden_dropout_prob=0.0, layer_norm_eps=1e-5)
    torch.manual_seed(seed)
    theirs = call(layer_class, config).eval()
    reference = TransformerDecoderLayer(config).eval()
    missing, unexpected = reference.load_state_dict(theirs.state_dict(), strict=False)
    if missing or unexpected:
        raise AssertionError(f"use TransformerDecoderLayer's names: missing {missing}, unexpected {unexpected}")
    self_mask = causal_mask(x.size(1))
    with torch.no_grad():
        got = call(theirs, x, memory, self_mask, padding_mask(key_mask))
        expected = reference(x, memory, self_mask, padding_mask(key_mask))
    if not isinstance(got, tuple) or len(got) != 3:
        raise AssertionError("forward must return (x, self-attention weights, cross-attention weights)")
    order = ("; post-LN means x = norm(x + sublayer(x)), in the order masked self-attention, "
             "cross-attention, feed-forward")
    explain(got[2], expected[2], {}, "cross-attention weights", hint=order)
    explain(got[0], expected[0], {}, "layer output", hint=order)


def check_translations(swap_in, count: int = 200, seed: int = 7) -> None:
    """Question 5: swap_in(model) puts your decoder layers, holding the trained weights, into
    notebook 07's dates translator; it must still translate held-out dates (>= 98% exact match)."""
    from anatomy.dates import CharVocabulary, date_pairs
    from anatomy.dates_translator import DATES_MODEL_DIR, translate
    from anatomy.transformer import Transformer

    model = call(swap_in, Transformer.from_pretrained(DATES_MODEL_DIR))
    if any(type(layer) is TransformerDecoderLayer for layer in model.decoder.layers):
        raise AssertionError("the decoder still holds anatomy.TransformerDecoderLayer: swap in your own class")
    pairs, vocab = date_pairs(count, "held_out", seed=seed), CharVocabulary()
    with torch.no_grad():
        predictions = translate(model.eval(), [source for source, _ in pairs], vocab)
    wrong = [(s, p, t) for p, (s, t) in zip(predictions, pairs) if p != t]
    if len(wrong) > 0.02 * count:
        examples = "; ".join(f"{s!r} -> {p!r} (expected {t})" for s, p, t in wrong[:3])
        raise AssertionError(f"{len(wrong)} of {count} held-out dates are translated wrongly, e.g. {examples}")
