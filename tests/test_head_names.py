"""anatomy.display.head_names: the legend that names a BertViz view's heads, in the colours BertViz draws.

The colours are checked against d3's own source (the copy the views carry) and BertViz's own script; that the
drawn squares have these colours in a browser is tests/test_viz_browser.py's.
"""
import re
from importlib.util import find_spec
from pathlib import Path

import pytest
import torch

from anatomy.display import bertviz_offline as offline
from anatomy.display import head_names
from anatomy.display.head_names import head_color, named_head_view

SOURCE, TARGET = list("Mar 3 2021"), ["<bos>", *"2021-03-03"]
SWATCH = re.compile(r'class="anatomy-head-swatch" data-layer="(\d+)" data-head="(\d+)" style="[^"]*background:(#[0-9a-f]{6})')


def cross(layers=2, heads=4):
    weights = torch.softmax(torch.randn(layers, 1, heads, len(TARGET), len(SOURCE), generator=torch.Generator().manual_seed(0)), -1)
    return list(weights)  # one (1, H, Tt, Ts) per layer


def names(layers=2, heads=4):
    return {(layer, head): f"head {layer}.{head} <measured>" for layer in range(layers) for head in range(heads)}


def view(names_, **changes):
    return named_head_view(names_, title="test", **{**dict(cross_attention=cross(), encoder_tokens=SOURCE,
                                                          decoder_tokens=TARGET), **changes})


def d3_category10() -> list[str]:
    """d3.schemeCategory10, read from the minified d3 5.7.0 that the views carry (make install fetches it)."""
    scripts = offline.vendor_scripts()
    assert scripts is not None, "run `make install`: it fetches d3 from npm"
    variable = re.search(r"schemeCategory10=(\w+)", scripts["d3"]).group(1)
    hexes = re.search(rf"\b{variable}=\w+\(\"([0-9a-f]+)\"\)", scripts["d3"]).group(1)
    return ["#" + hexes[i:i + 6] for i in range(0, len(hexes), 6)]


def test_head_colors_are_the_ones_bertviz_gives_head_h():
    script = (Path(find_spec("bertviz").origin).parent / "head_view.js").read_text()
    assert "headColors = d3.scaleOrdinal(d3.schemeCategory10);" in script  # BertViz's colour of a head
    assert ".attr(\"fill\", (d, i) => headColors(i))" in script  # the squares, one per head index
    colors = d3_category10()
    assert len(colors) == 10
    assert [head_color(head) for head in range(12)] == colors + colors[:2]  # an ordinal scale wraps around


def test_the_legend_shows_every_head_in_its_colour_with_its_name():
    shown = view(names())
    swatches = SWATCH.findall(shown.data)
    assert [(int(layer), int(head)) for layer, head, _ in swatches] == list(names())
    assert [color for _, head, color in swatches] == [d3_category10()[int(head)] for _, head, _ in swatches]
    assert "head 1.3 &lt;measured&gt;" in shown.data  # names are text, not HTML
    assert "anatomyWithRequire(function ()" in shown.data  # the view itself, offline
    assert repr(shown).splitlines() == ["test", *(f"  layer {layer} · head {head} "
                                                  f"({head_names.COLOR_WORDS[head]}): head {layer}.{head} <measured>"
                                                  for layer, head in names())]


def test_include_layers_names_only_the_layers_shown():
    shown = view({key: name for key, name in names().items() if key[0] == 1}, include_layers=[1])
    assert [int(layer) for layer, _, _ in SWATCH.findall(shown.data)] == [1] * 4


@pytest.mark.parametrize("change, error, message", [
    (lambda n: {**n, (2, 0): "a third layer"}, ValueError,
     r"names must name each head the view shows, layers \[0, 1\] x heads 0..3 \(8 heads, as \(layer, head\) -> "
     r"name\), got 9: missing \[\], not in the view \[\(2, 0\)\]"),
    (lambda n: {**n, (0, 4): "a fifth head"}, ValueError, r"got 9: missing \[\], not in the view \[\(0, 4\)\]"),
    (lambda n: {key: name for key, name in n.items() if key != (1, 3)}, ValueError,
     r"\(8 heads, .*got 7: missing \[\(1, 3\)\], not in the view \[\]"),
    (lambda n: {**n, (0, 1): ""}, TypeError, r"names must map each head to a non-empty string, got '' for head \(0, 1\)"),
    (lambda n: {**n, (0, 1): 0.38}, TypeError, r"non-empty string, got 0.38 for head \(0, 1\)"),
    (lambda n: list(n.values()), TypeError, r"names must be a dict \(layer, head\) -> name, got list"),
])
def test_names_that_do_not_fit_the_view_are_refused(change, error, message):
    with pytest.raises(error, match=message):
        view(change(names()))


def test_a_view_without_attention_or_with_weights_that_do_not_fit_is_refused():
    with pytest.raises(ValueError, match=r"named_head_view needs one of attention, encoder_attention, decoder_attention, "
                                         r"cross_attention .*got the keyword arguments \[\]"):
        named_head_view(names())
    with pytest.raises(ValueError, match=r"cross_attention must be one \(1, H, Tq, Tk\) tensor per layer \(Tq = 10"):
        view(names(), decoder_tokens=TARGET[:-1])
    with pytest.raises(TypeError, match="title must be str, got NoneType"):
        named_head_view(names(), title=None, cross_attention=cross())


def test_head_color_refuses_a_head_that_cannot_exist():
    with pytest.raises(ValueError, match=r"head must be an integer >= 0, got -1"):
        head_color(-1)
