"""Check for question 5 of the cross-attention homework (notebook 08): swap_in puts the student's
decoder layers, holding the trained weights, into notebook 07's dates translator, which must still
translate held-out dates. A wrong CrossAttention (question 3) or layer (question 4) costs only its
own question: the swap then runs with a known-good cross-attention, or each swapped layer runs a
known-good forward over its own modules, so the swap is still graded on the weights it put there.
The translation runs in the check's own copy of the trained model, which calls only the swapped-in
layers (in the grader: in the child, on the hidden dates' states); so a table of dates, or any other
route around the model, has nothing to answer.
"""
from __future__ import annotations

import contextlib
from types import MethodType

import torch
from torch import nn

from anatomy.models.decoder import TransformerDecoderLayer
from anatomy.homework.cross_attention.checks import check_cross_attention_module
from anatomy.homework.cross_attention.model_checks import (SUBSTITUTED, check_decoder_layer, own_class, run_own_layer,
                                                           stand_in, substitute_cross_attention)
from anatomy.homework.cross_attention.substitutes import KnownGoodCrossAttention, known_good_layer_forward
from anatomy.homework.feedback import Feedback, feedback_of, type_of
from anatomy.homework.messages import Message


LAYER_SUBSTITUTED = "ca_layer_substituted"  # the note: a known-good forward ran over each of the student's layers


class Borrowed(nn.Module):
    """One of the student's decoder layers (in the grader, a proxy: it runs in the child), called by the
    check's own translator: embeddings, encoder, output head and decoding stay the check's, so only
    layers that compute the decoder's step right can translate, and nothing else of the student's runs."""

    def __init__(self, layer) -> None:
        super().__init__()
        self.__dict__["layer"] = layer  # not a submodule: the check's model never reads its weights

    def forward(self, x, memory, self_mask=None, memory_mask=None, need_weights=False):
        out = run_own_layer(self.layer, x, memory, self_mask, memory_mask)
        if not isinstance(out, tuple) or len(out) != 3 or not isinstance(out[0], torch.Tensor) or out[0].shape != x.shape:
            raise Feedback("ca_translator_triple", shape=tuple(x.shape))
        return out[0].to(x.dtype), None, None


def check_translations(swap_in, layer_class=None, cross_attention_class=None, count: int = 200, seed: int = 7) -> None:
    """Question 5: swap_in(model) puts your decoder layers, holding the trained weights, into notebook
    07's dates translator; it must still translate held-out dates (>= 98% exact match). If your layer
    (question 4) is not right yet, each of your layers runs a known-good forward over its own modules,
    so only the swap itself is graded, on the weights it really put there."""
    from anatomy.tasks.dates import CharVocabulary, date_pairs
    from anatomy.tasks.dates_translator import DATES_MODEL_DIR, translate
    from anatomy.models.transformer import Transformer

    own_class(layer_class, "MyDecoderLayer")
    model = Transformer.from_pretrained(DATES_MODEL_DIR)
    trained = [layer.state_dict() for layer in model.decoder.layers]
    wrong_cross = cross_attention_class is not None and feedback_of(check_cross_attention_module, cross_attention_class, seed)
    with stand_in(layer_class, cross_attention_class, KnownGoodCrossAttention) if wrong_cross else contextlib.nullcontext():
        model = run_own_layer(swap_in, model)  # a wrong CrossAttention (say, without biases) cannot break the swap
    if model is None:
        raise Feedback("ca_no_return", "ca_no_return_name")
    layers = getattr(getattr(model, "decoder", None), "layers", [])
    for i, layer in enumerate(layers):
        if layer_class is not None and type_of(layer) is not layer_class:
            raise Feedback("ca_layer_class", i=i, got=type_of(layer).__name__)
        if any(isinstance(m, TransformerDecoderLayer) for m in layer.modules()):
            raise Feedback("ca_still_library", i=i)
        state = layer.state_dict()
        if state.keys() != trained[i].keys() or not all(torch.equal(state[k], trained[i][k]) for k in state):
            raise Feedback("ca_not_trained", i=i)
    if len(layers) != len(trained):
        raise Feedback("ca_layer_count", expected=len(trained), got=len(layers))
    note: tuple = ()
    if wrong_cross:
        for layer in layers:
            substitute_cross_attention(layer, model.config)
        note = (Message(SUBSTITUTED),)
    if layer_class is not None and feedback_of(check_decoder_layer, layer_class, cross_attention_class, seed):
        for layer in layers:  # question 4 already costs its points: grade the swap, on what each layer holds
            layer.forward = MethodType(known_good_layer_forward, layer)
        note += (Message(LAYER_SUBSTITUTED),)
    trusted = Transformer.from_pretrained(DATES_MODEL_DIR).eval()  # the check's own translator around your layers
    for i, layer in enumerate(layers):
        trusted.decoder.layers[i] = Borrowed(layer.eval())
    pairs, vocab = date_pairs(count, "held_out", seed=seed), CharVocabulary()
    with torch.no_grad():
        predictions = translate(trusted, [source for source, _ in pairs], vocab)
    wrong = [(s, p, t) for p, (s, t) in zip(predictions, pairs) if p != t]
    if len(wrong) > 0.02 * count:
        examples = tuple(Message("ca_translation_example", sep="; " if n else "", source=s, got=p, expected=t)
                         for n, (s, p, t) in enumerate(wrong[:3]))
        raise Feedback("ca_wrong_dates", wrong=len(wrong), count=count, examples=examples, note=note)

