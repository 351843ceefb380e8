"""BertViz views drawn offline in a real browser (headless Chromium with networking disabled).

The test exports the committed notebooks' BertViz outputs to HTML next to the notebooks (so the
relative path to anatomy/static/vendor resolves), opens them in Chromium with every host
unresolvable, and counts the SVG attention lines that d3 drew. Plain BertViz, as a control,
draws nothing under the same conditions.
"""
import re
from pathlib import Path

import nbformat
import pytest

from anatomy.display import bertviz_offline as offline
from anatomy.display import viz
from tools.headless import find_chromium, render_offline

NOTEBOOKS = Path(__file__).parent.parent / "notebooks"
pytestmark = pytest.mark.skipif(
    find_chromium() is None, reason="Chromium not installed (apt-get install chromium); .ci/run installs it")


def drawn_lines(html: str, name: str) -> int:
    dom = render_offline(html, NOTEBOOKS, "--dump-dom", name=f"_browser_test_{name}")
    return len(re.findall(r"<line\b", dom))


def bertviz_outputs(notebook: str) -> list[str]:
    cells = nbformat.read(NOTEBOOKS / notebook, as_version=4).cells
    return [output.data["text/html"] for cell in cells if cell.cell_type == "code"
            for output in cell.outputs if "bertviz-" in output.get("data", {}).get("text/html", "")]


def test_vendor_scripts_are_installed():
    assert offline.vendor_scripts() is not None, "run `make install`: it fetches require.js, d3, jquery from npm"


@pytest.mark.parametrize("notebook, views", [("03_attention.ipynb", 1), ("04_multi_head_attention.ipynb", 2),
                                              ("07_training.ipynb", 1), ("18_cross_attention_circuits.ipynb", 1)])
def test_notebook_views_draw_offline(notebook, views):
    outputs = bertviz_outputs(notebook)
    assert len(outputs) == views
    for index, html in enumerate(outputs):
        lines = drawn_lines(html, f"{notebook[:2]}_{index}")
        print(f"{notebook} view {index}: {lines} attention lines drawn offline")
        assert lines > 20


def test_named_heads_legend_has_the_colours_bertviz_draws():
    """18's view with its legend (anatomy.display.head_names): the squares BertViz draws for heads 0..H-1 are
    filled with the colours the legend gives those heads, in a browser, offline."""
    [html] = bertviz_outputs("18_cross_attention_circuits.ipynb")
    dom = render_offline(html, NOTEBOOKS, "--dump-dom", name="_browser_test_18_legend")
    squares = [dict(re.findall(r'([\w-]+)="([^"]*)"', tag)) for tag in re.findall(r"<rect\b[^>]*>", dom)]
    drawn = {int(float(rect["x"])) // 20: rect["fill"] for rect in squares
             if rect.get("width") == "20" and rect.get("height") == "20"}  # the head squares, 20 px apart
    legend = re.findall(r'class="anatomy-head-swatch" data-layer="(\d+)" data-head="(\d+)" style="[^"]*background:'
                        r'(#[0-9a-f]{6})', dom)
    print("drawn squares:", drawn, "legend:", legend)
    assert sorted(drawn) == list(range(4)) and len(legend) == 8  # 4 heads drawn; 2 layers x 4 heads named
    assert all(drawn[int(head)] == color for _, head, color in legend)
    assert len(set(drawn.values())) == 4
    assert re.search(r"<line\b", dom) and "Run this cell" not in dom  # the view drew, offline


def test_plain_bertviz_is_blank_offline(pretrained, monkeypatch):
    import bertviz

    monkeypatch.chdir(NOTEBOOKS)  # build the view as a notebook would, from notebooks/

    tokenizer, model = pretrained
    batch = tokenizer("time flies like an arrow", return_tensors="pt")
    attention = model(**batch, output_attentions=True).attentions
    tokens = tokenizer.convert_ids_to_tokens(batch.input_ids[0])
    plain = bertviz.head_view(attention, tokens, html_action="return").data
    assert drawn_lines(plain, "plain") == 0
    assert drawn_lines(viz.head_view(attention, tokens).data, "ours") > 20
