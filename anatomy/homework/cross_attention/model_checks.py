"""Checks for questions 4 and 5 of the cross-attention homework (notebook 08): the student's decoder
layer alone, then inside the trained dates translator. A wrong CrossAttention (question 3) costs
only question 3: these checks then put a known-good cross-attention in its place and say so.
Shapes: B batch, Tq decoder tokens, Ts source tokens, D model width.
"""
from __future__ import annotations

import contextlib
from types import SimpleNamespace

import torch
from torch import nn

from anatomy.models.decoder import TransformerDecoderLayer
from anatomy.homework.cross_attention.checks import SQUARE, check_cross_attention_module, inputs, named_crash
from anatomy.homework.cross_attention.mistakes import MISTAKES
from anatomy.homework.cross_attention.substitutes import KnownGoodCrossAttention
from anatomy.homework.cross_attention.variants import decoder_layer
from anatomy.homework.feedback import Feedback, call, compare, feedback_of, load_check_weights, type_of
from anatomy.homework.messages import Message, Together
from anatomy.homework.tracing import forbid, methods
from anatomy.layers.masks import causal_mask, padding_mask

LIBRARY_LAYERS = methods(TransformerDecoderLayer, nn.TransformerDecoderLayer, nn.TransformerDecoder)
LIBRARY_NAMES = {"anatomy.models.decoder.TransformerDecoderLayer": "anatomy.TransformerDecoderLayer",
                 "torch.nn.modules.transformer.TransformerDecoderLayer": "torch.TransformerDecoderLayer"}
SUBSTITUTED = "ca_substituted"  # the note: a known-good cross-attention stood in for question 3's


def substitute_cross_attention(layer: nn.Module, config) -> None:
    """Replace layer.cross_attn by a known-good one holding the same weights."""
    good = KnownGoodCrossAttention(config)
    good.load_state_dict(layer.cross_attn.state_dict(), strict=False)
    layer.cross_attn = good.train(layer.training)


@contextlib.contextmanager
def stand_in(user_class, replaced, replacement):
    """While the block runs, the names of the notebook's globals that `user_class` sees and that are
    bound to `replaced` are bound to `replacement` (a proxy of the grader's child does it there)."""
    if hasattr(user_class, "stand_in"):
        with user_class.stand_in(replaced, replacement):
            yield
        return
    function = next((f for f in vars(user_class).values() if hasattr(f, "__globals__")), None) if isinstance(user_class, type) else None
    scope = function.__globals__ if function is not None else {}
    names = [name for name, value in scope.items() if value is replaced]
    scope.update(dict.fromkeys(names, replacement))
    try:
        yield
    finally:
        scope.update(dict.fromkeys(names, replaced))


def own_class(layer_class, what: str) -> None:
    mro = ([f"{c.__module__}.{c.__qualname__}" for c in layer_class.__mro__] if isinstance(layer_class, type)
           else list(getattr(layer_class, "mro_names", [])))
    for name, short in LIBRARY_NAMES.items():
        if name in mro[1:]:
            raise Feedback("ca_subclasses", what=what, short=short)


def run_own_layer(answer, *args):
    """call(answer, *args), refusing the package's decoder layer, even one created inside forward."""
    with forbid(LIBRARY_LAYERS) as seen:
        try:
            result, failure = call(answer, *args), None
        except Feedback as feedback:
            result, failure = None, feedback
    if seen:
        raise Feedback("ca_uses_layer", name=seen[0])
    if failure is not None:
        raise failure
    return result


def distinct_norms(state: dict, seed: int) -> dict:
    """The layer's weights with each LayerNorm's own random scale and shift, so reusing one shows."""
    generator = torch.Generator().manual_seed(seed)
    return {k: v + 0.5 * torch.randn(v.shape, generator=generator) if "layer_norm" in k else v for k, v in state.items()}


def check_decoder_layer(layer_class, cross_attention_class=None, seed: int = 0, heads: int = 2, **shape) -> None:
    """Question 4: a post-LN decoder layer, a drop-in for anatomy.TransformerDecoderLayer."""
    own_class(layer_class, "MyDecoderLayer")
    x, memory, key_mask = inputs(seed, **shape)
    config = SimpleNamespace(hidden_size=x.size(-1), num_attention_heads=heads, intermediate_size=16,
                             hidden_act="relu", hidden_dropout_prob=0.0, layer_norm_eps=1e-5)
    torch.manual_seed(seed)
    theirs = run_own_layer(layer_class, config)
    if not isinstance(theirs, nn.Module):
        raise Feedback("ca_not_module", what="MyDecoderLayer", got=type_of(theirs).__name__)
    if any(isinstance(m, TransformerDecoderLayer) for m in theirs.modules()):
        raise Feedback("ca_wraps_layer")
    theirs.eval()
    note: tuple = ()
    if cross_attention_class is not None and feedback_of(check_cross_attention_module, cross_attention_class, seed):
        substitute_cross_attention(theirs, config)
        note = (Message(SUBSTITUTED),)
    torch.manual_seed(seed)  # the check's own random weights, loaded into yours: zero or made-up weights cannot match
    reference = TransformerDecoderLayer(config).eval()
    names, own = reference.state_dict().keys(), theirs.state_dict().keys()
    missing, unexpected = sorted(set(names) - set(own)), sorted(set(own) - set(names))
    if missing or unexpected:
        raise Feedback("ca_layer_names", missing=missing, unexpected=unexpected)
    state = distinct_norms(reference.state_dict(), seed)
    reference.load_state_dict(state)
    load_check_weights(theirs, state)
    mistakes = [("pre_ln", 0), ("norm_outside", 0), ("no_causal", 0)] + [
        (name, which) for name in ("no_residual", "one_norm") for which in range(3)] + [("cross_before_self", w) for w in (0, 1)]

    def layer_output(x, memory, key_mask):
        self_mask, memory_mask = causal_mask(x.size(1)), padding_mask(key_mask)
        with torch.no_grad():
            got = run_own_layer(theirs, x, memory, self_mask, memory_mask)
            expected = reference(x, memory, self_mask, memory_mask)
            variants = [(MISTAKES[name], decoder_layer(reference, x, memory, self_mask, memory_mask, name, which))
                        for name, which in mistakes]
        return got, expected, variants
    try:
        got, expected, variants = layer_output(x, memory, key_mask)
    except Feedback as failure:
        xs, ms, mask = inputs(seed, **(SQUARE | {"width": x.size(-1)}))  # memory = x only runs when Tq == Ts
        masks = causal_mask(xs.size(1)), padding_mask(mask)
        with torch.no_grad():
            right, wrong = reference(xs, ms, *masks)[0], decoder_layer(reference, xs, ms, *masks, "memory_is_x")
        raise named_crash(failure, lambda: layer_output(xs, ms, mask)[0][0], [(MISTAKES["memory_is_x"], wrong, right)])
    if not isinstance(got, tuple) or len(got) != 3:
        raise Feedback("ca_layer_triple", note=note)
    try:
        compare(got[0], expected[0], "what_layer_output", variants, hint="ca_post_ln_hint")
        compare(got[2], expected[2], "what_cross_weights")
    except Feedback as feedback:
        raise Feedback(Together(feedback.message, *note), feedback.name) from None
