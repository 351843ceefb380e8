"""Patching along the encoder-decoder path: per cross-attention head, and through one head's keys and values.

Taught in: 18_cross_attention_circuits (after 07_training, 08's homework and 17_interpretability).
Shapes: B batch, Ts source characters, Tt target positions,
L decoder layers, H heads, Dh head width, D = H x Dh model width.
Activation patching (anatomy.interpret.patching) pastes one activation of a clean run into a corrupted
run. Path patching (Wang et al. 2023) restricts the route: here the clean encoder output reaches the
decoder only through the keys and values of one cross-attention head; every other head, and the
queries, still see the corrupted source.
"""
from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from anatomy.checks import check_integer, check_type
from anatomy.interpret.cross_attention import FIELDS, all_heads, check_field, check_run
from anatomy.interpret.hooks import Edit, Hooks
from anatomy.interpret.patching import Metric, check_pair, logit_difference
from anatomy.tasks.dates import CharVocabulary, make_batch

ROUTES = ("key", "value")


def date_pair(clean: str, corrupted: str, target: str, vocab: CharVocabulary) -> tuple[tuple, tuple]:
    """(clean run, corrupted run): each (src_ids, tgt_ids), both decoders reading `target` (the clean
    answer), so that only the source differs. The two sources must have the same length."""
    for name, text in (("clean", clean), ("corrupted", corrupted), ("target", target)):
        if not isinstance(text, str):
            raise TypeError(f"{name} must be a string (a written date), got {type(text).__name__}")
    if len(clean) != len(corrupted):
        raise ValueError(f"clean and corrupted must be written dates of the same length (patching pastes source "
                         f"position t into position t), got {clean!r} ({len(clean)} characters) and {corrupted!r} "
                         f"({len(corrupted)}): pick two that differ only in the field, e.g. 'Mar 3 2021' and 'May 3 2021'")
    a, b = make_batch([(clean, target)], vocab), make_batch([(corrupted, target)], vocab)
    return (a.src_ids, a.tgt_ids), (b.src_ids, b.tgt_ids)


def field_metric(field: str, clean_target: str, corrupted_target: str, vocab: CharVocabulary) -> Metric:
    """logit(clean character) - logit(corrupted character) at the first character of `field` where the
    two ISO answers differ (target position t predicts character t)."""
    where = FIELDS[check_field(field)]
    for name, text in (("clean_target", clean_target), ("corrupted_target", corrupted_target)):
        if not isinstance(text, str) or len(text) != 10:
            raise ValueError(f"{name} must be an ISO date such as '2021-03-03', got {text!r}")
    check_type("vocab", vocab, CharVocabulary)
    differ = [t for t in range(where.start, where.stop) if clean_target[t:t + 1] != corrupted_target[t:t + 1]]
    if not differ:
        raise ValueError(f"{clean_target!r} and {corrupted_target!r} have the same {field}: pick a corrupted date "
                         f"whose {field} differs")
    return logit_difference(differ[0], vocab.ids[clean_target[differ[0]]], vocab.ids[corrupted_target[differ[0]]])


def patch_heads(name: str, source: torch.Tensor, heads: Sequence[int]) -> Edit:
    """An edit for "decoder.i.cross_z": the chosen heads' outputs (all positions) taken from `source`."""
    check_type("source", source, torch.Tensor, what="the activation recorded on the clean run (B, Tt, H, Dh)")
    if source.dim() != 4:
        raise ValueError(f"source must be a (B, Tt, H, Dh) head output, got shape {tuple(source.shape)}")
    heads = [check_integer("heads", h, least=0, most=source.size(2) - 1) for h in
             check_type("heads", heads, list, tuple, what="a list of head indices")]
    def edit(z: torch.Tensor) -> torch.Tensor:  # (B, Tt, H, Dh)
        if source.shape != z.shape:
            raise ValueError(f"the patch for {name!r} has shape {tuple(source.shape)}, but the activation is {tuple(z.shape)}")
        z = z.clone()
        z[:, :, list(heads)] = source[:, :, list(heads)]
        return z
    return edit


def _scores(model: nn.Module, clean: tuple, corrupted: tuple, metric: Metric) -> tuple[torch.Tensor, torch.Tensor]:
    check_run(model)
    check_pair(clean, corrupted)
    if not callable(metric):
        raise TypeError(f"metric must be a function model output -> number, got {type(metric).__name__}")
    high, low = metric(model(*clean)), metric(model(*corrupted))
    if (high - low).abs() < 1e-6:
        raise ValueError(f"the metric is {high.item():.4g} on both runs: nothing to restore; pick a corruption that "
                         "changes the answer")
    return high, low


@torch.no_grad()
def head_patching(model: nn.Module, clean: tuple, corrupted: tuple, metric: Metric) -> torch.Tensor:
    """(L, H): the fraction of the clean metric restored by pasting one cross-attention head's clean output."""
    high, low = _scores(model, clean, corrupted, metric)
    names = [f"decoder.{layer}.cross_z" for layer in range(len(model.decoder.layers))]
    with Hooks(model, record=names) as cache:
        model(*clean)
    grid = torch.zeros(len(names), model.config.num_attention_heads)
    for layer, head in all_heads(model):
        with Hooks(model, edit={names[layer]: patch_heads(names[layer], cache[names[layer]], [head])}):
            grid[layer, head] = (metric(model(*corrupted)) - low) / (high - low)
    return grid


@torch.no_grad()
def path_patching(model: nn.Module, layer: int, head: int, clean: tuple, corrupted: tuple, metric: Metric,
                  routes: Sequence[str] = ROUTES) -> float:
    """The fraction of the clean metric restored when the clean encoder output reaches the decoder only
    through `routes` ("key", "value" or both) of cross-attention head `head` of decoder layer `layer`."""
    check_run(model)
    layer = check_integer("layer", layer, least=0, most=len(model.decoder.layers) - 1)
    head = check_integer("head", head, least=0, most=model.config.num_attention_heads - 1)
    if isinstance(routes, str) or not routes or any(route not in ROUTES for route in routes):
        raise ValueError(f"routes must be a non-empty list from {ROUTES}, got {routes!r}")
    high, low = _scores(model, clean, corrupted, metric)
    attention = model.decoder.layers[layer].cross_attn
    columns = slice(head * attention.head_dim, (head + 1) * attention.head_dim)  # head h's Dh of the D outputs
    projections = [getattr(attention, f"{route[0]}_proj") for route in dict.fromkeys(routes)]
    recorded: dict[nn.Module, torch.Tensor] = {}

    def record(module, args, output):
        recorded[module] = output  # (B, Ts, D): k_proj or v_proj of the clean memory

    def paste(module, args, output):
        output = output.clone()
        output[..., columns] = recorded[module][..., columns]
        return output
    for hook in (record, paste):
        handles = [projection.register_forward_hook(hook) for projection in projections]
        try:
            value = model(*(clean if hook is record else corrupted))
        finally:
            for handle in handles:
                handle.remove()
    return ((metric(value) - low) / (high - low)).item()
