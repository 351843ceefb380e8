"""Checks for questions 4 and 5 of the cross-attention homework (notebook 08): the student's decoder
layer alone, then inside the trained dates translator. A wrong CrossAttention (question 3) costs
only question 3: these checks then put a known-good cross-attention in its place and say so.
Shapes: B batch, Tq decoder tokens, Ts source tokens, D model width.
"""
from __future__ import annotations

from types import SimpleNamespace

import torch
from torch import nn

from anatomy.decoder import TransformerDecoderLayer
from anatomy.homework.cross_attention.checks import check_cross_attention_module, inputs
from anatomy.homework.cross_attention.mistakes import MISTAKES, decoder_layer
from anatomy.homework.feedback import Feedback, call, compare, feedback_of
from anatomy.homework.tracing import forbid, methods
from anatomy.masks import causal_mask, padding_mask
from anatomy.multihead import MultiHeadAttention

LIBRARY_LAYERS = methods(TransformerDecoderLayer, nn.TransformerDecoderLayer, nn.TransformerDecoder)
SUBSTITUTED = " (your CrossAttention, question 3, is not right yet, so this used a known-good cross-attention in its place)"


class KnownGoodCrossAttention(MultiHeadAttention):
    """anatomy's tested attention behind question 3's signature: forward(x, memory, key_mask=None)."""

    def forward(self, x, memory, key_mask=None, need_weights=True):
        return super().forward(x, memory, mask=None if key_mask is None else padding_mask(key_mask))


def substitute_cross_attention(layer: nn.Module, config) -> None:
    """Replace layer.cross_attn by a known-good one holding the same weights."""
    good = KnownGoodCrossAttention(config)
    good.load_state_dict(layer.cross_attn.state_dict(), strict=False)
    layer.cross_attn = good.train(layer.training)


def own_class(layer_class, what: str) -> None:
    for library in (TransformerDecoderLayer, nn.TransformerDecoderLayer):
        if isinstance(layer_class, type) and issubclass(layer_class, library):
            raise Feedback(f"{what} subclasses {library.__module__.split('.')[0]}.{library.__name__}: "
                           "this question asks for your own decoder layer")


def run_own_layer(answer, *args):
    """call(answer, *args), refusing the package's decoder layer, even one created inside forward."""
    with forbid(LIBRARY_LAYERS) as seen:
        try:
            result, failure = call(answer, *args), None
        except Feedback as feedback:
            result, failure = None, feedback
    if seen:
        raise Feedback(f"uses {seen[0]}: this question asks for your own decoder layer")
    if failure is not None:
        raise failure
    return result


def check_decoder_layer(layer_class, cross_attention_class=None, seed: int = 0, heads: int = 2, **shape) -> None:
    """Question 4: a post-LN decoder layer, a drop-in for anatomy.TransformerDecoderLayer."""
    own_class(layer_class, "MyDecoderLayer")
    x, memory, key_mask = inputs(seed, **shape)
    config = SimpleNamespace(hidden_size=x.size(-1), num_attention_heads=heads, intermediate_size=16,
                             hidden_act="relu", hidden_dropout_prob=0.0, layer_norm_eps=1e-5)
    torch.manual_seed(seed)
    theirs = run_own_layer(layer_class, config)
    if not isinstance(theirs, nn.Module):
        raise Feedback(f"MyDecoderLayer(config) must build an nn.Module, got {type(theirs).__name__}")
    if any(isinstance(m, TransformerDecoderLayer) for m in theirs.modules()):
        raise Feedback("MyDecoderLayer wraps anatomy.TransformerDecoderLayer: write the layer yourself")
    theirs.eval()
    note = ""
    if cross_attention_class is not None and feedback_of(check_cross_attention_module, cross_attention_class, seed):
        substitute_cross_attention(theirs, config)
        note = SUBSTITUTED
    reference = TransformerDecoderLayer(config).eval()
    missing, unexpected = reference.load_state_dict(theirs.state_dict(), strict=False)
    if missing or unexpected:
        raise Feedback(f"use TransformerDecoderLayer's names: missing {missing}, unexpected {unexpected}")
    self_mask, memory_mask = causal_mask(x.size(1)), padding_mask(key_mask)
    with torch.no_grad():
        got = run_own_layer(theirs, x, memory, self_mask, memory_mask)
        expected = reference(x, memory, self_mask, memory_mask)
        variants = [(MISTAKES[name], decoder_layer(reference, x, memory, self_mask, memory_mask, name))
                    for name in ("pre_ln", "cross_before_self")]
        variants += [(MISTAKES["no_residual"], decoder_layer(reference, x, memory, self_mask, memory_mask,
                                                             "no_residual", skip)) for skip in range(3)]
    if not isinstance(got, tuple) or len(got) != 3:
        raise Feedback(f"forward must return (x, self-attention weights, cross-attention weights){note}")
    try:
        compare(got[0], expected[0], "layer output", variants,
                hint="; post-LN is x = norm(x + sublayer(x)): masked self-attention, cross-attention, feed-forward")
        compare(got[2], expected[2], "cross-attention weights")
    except Feedback as feedback:
        raise Feedback(f"{feedback}{note}") from None


def check_translations(swap_in, layer_class=None, cross_attention_class=None, count: int = 200, seed: int = 7) -> None:
    """Question 5: swap_in(model) puts your decoder layers, holding the trained weights, into notebook
    07's dates translator; it must still translate held-out dates (>= 98% exact match). If your layer
    (question 4) is not right yet, only the swap itself is graded."""
    from anatomy.dates import CharVocabulary, date_pairs
    from anatomy.dates_translator import DATES_MODEL_DIR, translate
    from anatomy.transformer import Transformer

    own_class(layer_class, "MyDecoderLayer")
    model = Transformer.from_pretrained(DATES_MODEL_DIR)
    trained = [layer.state_dict() for layer in model.decoder.layers]
    model = run_own_layer(swap_in, model)
    layers = getattr(getattr(model, "decoder", None), "layers", [])
    for i, layer in enumerate(layers):
        if layer_class is not None and type(layer) is not layer_class:
            raise Feedback(f"model.decoder.layers[{i}] is a {type(layer).__name__}, not your MyDecoderLayer")
        if any(isinstance(m, TransformerDecoderLayer) for m in layer.modules()):
            raise Feedback(f"model.decoder.layers[{i}] still holds anatomy.TransformerDecoderLayer: swap in your own class")
        state = layer.state_dict()
        if state.keys() != trained[i].keys() or not all(torch.equal(state[k], trained[i][k]) for k in state):
            raise Feedback(f"model.decoder.layers[{i}] does not hold the trained weights: load_state_dict(old.state_dict())")
    if len(layers) != len(trained):
        raise Feedback(f"the decoder must keep its {len(trained)} layers, found {len(layers)}")
    note = ""
    if cross_attention_class is not None and feedback_of(check_cross_attention_module, cross_attention_class, seed):
        for layer in layers:
            substitute_cross_attention(layer, model.config)
        note = SUBSTITUTED
    if layer_class is not None and feedback_of(check_decoder_layer, layer_class, cross_attention_class, seed):
        return  # question 4 already costs its points; the swap itself is right
    pairs, vocab = date_pairs(count, "held_out", seed=seed), CharVocabulary()
    with torch.no_grad():
        predictions = run_own_layer(translate, model.eval(), [source for source, _ in pairs], vocab)
    wrong = [(s, p, t) for p, (s, t) in zip(predictions, pairs) if p != t]
    if len(wrong) > 0.02 * count:
        examples = "; ".join(f"{s!r} -> {p!r} (expected {t})" for s, p, t in wrong[:3])
        raise Feedback(f"{len(wrong)} of {count} held-out dates are translated wrongly, e.g. {examples}{note}")
