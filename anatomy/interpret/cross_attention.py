"""Cross-attention heads of the dates translator: where each output field reads from, and what the
model loses without a head (zero and mean ablation), field by field.

Taught in: 18_cross_attention_circuits (after 07_training, 08's homework and 17_interpretability).
Shapes: B batch, Ts source characters, Tt target positions,
L decoder layers, H heads, Dh head width, F = 3 fields (year, month, day).
The ISO output "2021-03-03" has its fields at known characters; in the source, each field is the run of
digits or the month's name that the date format puts there, so each head can be scored against it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

import torch
from torch import nn

from anatomy.checks import check_integer, check_type
from anatomy.interpret.hooks import Edit, Hooks
from anatomy.tasks.dates import FORMATS, MONTHS, CharVocabulary, make_batch, split_dates
from anatomy.tasks.dates_translator import translate

FIELDS = {"year": slice(0, 4), "month": slice(5, 7), "day": slice(8, 10)}  # characters of the ISO output
# the fields in the order each format writes them (a weekday, "of" and "rd" are not fields)
ORDER = {name: (("year", "month", "day") if name.startswith("2021") else
                ("day", "month", "year") if name[0].isdigit() and not name.startswith("03/") else
                ("month", "day", "year")) for name in FORMATS}
MONTH_NAMES = {m.lower() for m in MONTHS} | {m[:3].lower() for m in MONTHS}


def check_field(field: object) -> str:
    if field not in FIELDS:
        raise ValueError(f"field must be one of {', '.join(map(repr, FIELDS))}, got {field!r}")
    return field  # type: ignore[return-value]


@dataclass
class Example:
    text: str  # the written date, e.g. "Mar 3 2021"
    iso: str  # "2021-03-03"
    format: str  # a key of anatomy.tasks.dates.FORMATS
    spans: dict[str, range]  # field -> the source characters that write it


def source_spans(text: str, format_name: str) -> dict[str, range]:
    """Field -> character positions of `text` (written in `format_name`) that hold it."""
    check_type("text", text, str, what="a written date (a string)")
    if format_name not in ORDER:
        raise ValueError(f"format_name must be a key of anatomy.tasks.dates.FORMATS, got {format_name!r}")
    runs = [m for m in re.finditer(r"\d+|[A-Za-z]+", text) if m.group().isdigit() or m.group().lower() in MONTH_NAMES]
    if len(runs) != 3:
        raise ValueError(f"text {text!r} is not a date in the format {format_name!r}: found {len(runs)} fields, not 3")
    return {field: range(m.start(), m.end()) for field, m in zip(ORDER[format_name], runs)}


def held_out_examples(per_format: int, seed: int = 0) -> list[Example]:
    """`per_format` held-out dates (never seen in training) written in each of the ten formats."""
    check_integer("per_format", per_format)
    check_integer("seed", seed, least=0)
    rng, days = torch.Generator().manual_seed(seed), split_dates("held_out")
    examples = []
    for name, write in FORMATS.items():
        for i in torch.randint(len(days), (per_format,), generator=rng).tolist():
            day: date = days[i]
            examples.append(Example(write(day), day.isoformat(), name, source_spans(write(day), name)))
    return examples


def check_run(model: object, examples: object = (None,), vocab: object = None) -> None:
    """The translator (an encoder-decoder with .decoder.layers), a non-empty list of Example, a CharVocabulary."""
    if not (isinstance(model, nn.Module) and hasattr(getattr(model, "decoder", None), "layers")):
        raise TypeError(f"model must be the encoder-decoder anatomy.Transformer (07's translator), got {type(model).__name__}")
    if examples != (None,) and (not isinstance(examples, list) or not examples
                                or not all(isinstance(e, Example) for e in examples)):
        raise ValueError(f"examples must be a non-empty list of Example (e.g. held_out_examples(10)), got {str(examples)[:60]}")
    if vocab is not None or examples != (None,):
        check_type("vocab", vocab, CharVocabulary)


def check_heads(model: nn.Module, heads: object) -> list[tuple[int, int]]:
    """A list of (decoder layer, head), each of which exists in `model`."""
    check_run(model)
    layers, count = len(model.decoder.layers), model.config.num_attention_heads
    if not isinstance(heads, (list, tuple)):
        raise TypeError(f"heads must be a list of (layer, head) pairs, got {type(heads).__name__}")
    for pair in heads:
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and all(
                isinstance(x, int) and not isinstance(x, bool) for x in pair)):
            raise TypeError(f"heads must be (layer, head) pairs of integers, got {pair!r}")
        if not (0 <= pair[0] < layers and 0 <= pair[1] < count):
            raise ValueError(f"heads: ({pair[0]}, {pair[1]}) does not exist: the decoder has layers 0 .. {layers - 1} "
                             f"with heads 0 .. {count - 1} each")
    return [tuple(pair) for pair in heads]  # type: ignore[misc]


def all_heads(model: nn.Module) -> list[tuple[int, int]]:
    check_run(model)
    return [(layer, head) for layer in range(len(model.decoder.layers)) for head in range(model.config.num_attention_heads)]


@torch.no_grad()
def attention_to_fields(model: nn.Module, examples: list[Example], vocab: CharVocabulary) -> torch.Tensor:
    """(L, H, F): the mean cross-attention weight a head puts on a field's source characters, from
    the target positions that write that field (teacher forcing: the decoder reads the right answer)."""
    check_run(model, examples, vocab)
    batch = make_batch([(e.text, e.iso) for e in examples], vocab, next(model.parameters()).device)
    out = model(batch.src_ids, batch.tgt_ids, batch.src_mask, batch.tgt_mask, output_attentions=True)
    weights = torch.stack(out.cross_attentions, dim=1)  # (B, L, H, Tt, Ts)
    spans = torch.zeros(len(examples), len(FIELDS), weights.size(-1))  # (B, F, Ts): 1 on a field's characters
    for b, example in enumerate(examples):
        for f, field in enumerate(FIELDS):
            spans[b, f, list(example.spans[field])] = 1.0
    summary = torch.zeros(weights.size(1), weights.size(2), len(FIELDS))
    for f, where in enumerate(FIELDS.values()):  # decoder position t predicts character t of the ISO output
        on_span = torch.einsum("blhts,bs->blht", weights[..., where, :], spans[:, f].to(weights))  # (B, L, H, t)
        summary[..., f] = on_span.mean(dim=(0, 3)).cpu()
    return summary


def ablate(heads: list[tuple[int, int]], means: dict[int, torch.Tensor] | None = None) -> dict[str, Edit]:
    """Edits for Hooks: the cross-attention output of each (layer, head) replaced by zeros, or by
    `means[layer]` (Tt, H, Dh), the head's average output at each target position."""
    if not isinstance(heads, (list, tuple)) or not all(isinstance(pair, (list, tuple)) and len(pair) == 2 for pair in heads):
        raise TypeError(f"heads must be a list of (layer, head) pairs, got {heads!r}")
    if means is not None and not (isinstance(means, dict) and all(isinstance(m, torch.Tensor) for m in means.values())):
        raise TypeError(f"means must be None or cross_head_means(...)'s dict layer -> (Tt, H, Dh), got {type(means).__name__}")
    by_layer = {layer: [h for l, h in heads if l == layer] for layer, _ in heads}

    def edit_for(layer: int, chosen: list[int]) -> Edit:
        def edit(z: torch.Tensor) -> torch.Tensor:  # (B, Tt, H, Dh)
            z = z.clone()
            z[:, :, chosen] = 0.0 if means is None else means[layer][:z.size(1), chosen].to(z)
            return z
        return edit
    return {f"decoder.{layer}.cross_z": edit_for(layer, chosen) for layer, chosen in by_layer.items()}


@torch.no_grad()
def cross_head_means(model: nn.Module, examples: list[Example], vocab: CharVocabulary) -> dict[int, torch.Tensor]:
    """Layer -> (Tt, H, Dh): each cross-attention head's output per target position, averaged over `examples`."""
    check_run(model, examples, vocab)
    batch = make_batch([(e.text, e.iso) for e in examples], vocab, next(model.parameters()).device)
    names = [f"decoder.{layer}.cross_z" for layer in range(len(model.decoder.layers))]
    with Hooks(model, record=names) as cache:
        model(batch.src_ids, batch.tgt_ids, batch.src_mask, batch.tgt_mask)
    return {layer: cache[name].mean(dim=0) for layer, name in enumerate(names)}


def field_accuracy(model: nn.Module, examples: list[Example], vocab: CharVocabulary,
                   heads: list[tuple[int, int]] = (), means: dict[int, torch.Tensor] | None = None) -> dict[str, float]:
    """Field -> fraction of `examples` whose greedy translation has that field right, with `heads`
    ablated (zero ablation, or mean ablation if `means` from cross_head_means is given)."""
    check_run(model, examples, vocab)
    heads = check_heads(model, check_type("heads", heads, list, tuple, what="a list of (layer, head) pairs"))
    with Hooks(model, edit=ablate(heads, means)):
        predictions = translate(model, [e.text for e in examples], vocab)
    return {field: sum(p[where] == e.iso[where] for p, e in zip(predictions, examples)) / len(examples)
            for field, where in FIELDS.items()}
