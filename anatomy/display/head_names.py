"""Names for the heads of a BertViz head view: a legend beside the view, in the colours BertViz draws them.

Taught in: 18_cross_attention_circuits (one held-out date's cross-attention, each head named by what the
notebook measured about it).
Shapes: L layers, H heads per layer.

BertViz 1.4.1 takes no names for heads: it draws head h of every layer in one colour and offers only the
coloured squares at the top of the view. Its head_view.js builds that colour as
`d3.scaleOrdinal(d3.schemeCategory10)`; an ordinal scale with no domain gives each new value the next colour,
and the view first asks for heads 0, 1, 2, ... in order, so head h gets colour h of d3's ten (head 10
repeats head 0's). The legend uses the same ten colours (tests/test_head_names.py reads them from d3's own
source and from the squares BertViz draws in a browser).
"""
from __future__ import annotations

import html

from IPython.display import HTML

from anatomy.checks import check_integer, check_type
from anatomy.display import viz

# d3.schemeCategory10 (d3 5.7.0, the version BertViz loads), in order, with a word for each
BERTVIZ_HEAD_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                       "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
COLOR_WORDS = ("blue", "orange", "green", "red", "purple", "brown", "pink", "grey", "olive", "cyan")
VIEW_ARGUMENTS = ("attention", "encoder_attention", "decoder_attention", "cross_attention")


def head_color(head: int) -> str:
    """The colour BertViz's head view draws head `head` in (the same in every layer)."""
    return BERTVIZ_HEAD_COLORS[check_integer("head", head, least=0) % len(BERTVIZ_HEAD_COLORS)]


def view_grid(view: dict) -> tuple[list[int], int]:
    """(the layers a head view shows, H) for the keyword arguments of viz.head_view."""
    given = [view[name] for name in VIEW_ARGUMENTS if view.get(name) is not None]
    if not given:
        raise ValueError(f"named_head_view needs one of {', '.join(VIEW_ARGUMENTS)} (the arguments of "
                         f"anatomy.display.viz.head_view), got the keyword arguments {sorted(view)}")
    viz.check_views(view.get("attention"), view.get("tokens"), view)  # (1, H, Tq, Tk) per layer, fitting the tokens
    layers = view.get("include_layers") or list(range(len(given[0])))
    return list(layers), given[0][0].shape[1]


def check_names(names: object, layers: list[int], heads: int) -> dict[tuple[int, int], str]:
    """`names` if it maps each (layer, head) the view shows, and nothing else, to a non-empty string."""
    check_type("names", names, dict, what="a dict (layer, head) -> name")
    wanted = [(layer, head) for layer in layers for head in range(heads)]
    missing = [key for key in wanted if key not in names]
    extra = [key for key in names if key not in wanted]
    if missing or extra:
        raise ValueError(f"names must name each head the view shows, layers {layers} x heads 0..{heads - 1} "
                         f"({len(wanted)} heads, as (layer, head) -> name), got {len(names)}: missing {missing}, "
                         f"not in the view {extra}")
    for key in wanted:
        if not isinstance(names[key], str) or not names[key].strip():
            raise TypeError(f"names must map each head to a non-empty string, got {names[key]!r} for head {key}")
    return {key: names[key] for key in wanted}


def legend_text(names: dict[tuple[int, int], str], title: str) -> str:
    """The legend as plain text: one line per head, with its colour's word."""
    return "\n".join([title, *(f"  layer {layer} · head {head} ({COLOR_WORDS[head % 10]}): {name}"
                               for (layer, head), name in names.items())])


def legend_html(names: dict[tuple[int, int], str], title: str) -> str:
    """The legend as an HTML table: a square of the head's BertViz colour, the head, its name."""
    cell = "padding:3px 6px;vertical-align:top;text-align:left"
    rows = "".join(
        f'<tr><td style="{cell}"><span class="anatomy-head-swatch" data-layer="{layer}" data-head="{head}" style="'
        f'display:inline-block;width:14px;height:14px;background:{head_color(head)}"></span></td>'
        f'<td style="{cell};white-space:nowrap">layer {layer} · head {head}</td>'
        f'<td style="{cell}">{html.escape(name)}</td></tr>'
        for (layer, head), name in names.items())
    return (f'<table class="anatomy-head-legend" style="font-family:\'Helvetica Neue\', Helvetica, Arial, sans-serif;'
            f'font-size:13px;border-collapse:collapse"><caption style="text-align:left;font-weight:bold;'
            f'padding-bottom:4px">{html.escape(title)}</caption>{rows}</table>')


class NamedHeadView(HTML):
    """A head view with its legend: HTML where a notebook draws it, the legend as text everywhere else."""

    def __init__(self, page: str, text: str) -> None:
        super().__init__(page)
        self.text = text

    def __repr__(self) -> str:
        return self.text


def named_head_view(names: dict[tuple[int, int], str], title: str = "heads", **view) -> NamedHeadView:
    """viz.head_view(**view), rendered offline, with a legend beside it that gives each head its name.
    `names` maps every (layer, head) the view shows to a name; the legend shows each in BertViz's colour."""
    check_type("title", title, str)
    layers, heads = view_grid(view)
    named = check_names(names, layers, heads)
    page = (f'<div style="display:flex;flex-wrap:wrap;gap:8px 32px;align-items:flex-start">'
            f'<div style="flex:0 0 360px">{viz.head_view(**view).data}</div>'
            f'<div style="flex:1 1 320px;max-width:640px">{legend_html(named, title)}</div></div>')
    return NamedHeadView(page, legend_text(named, title))
