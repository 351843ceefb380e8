"""`make notebooks` on an unchanged tree leaves git clean: re-execution reproduces a notebook byte for byte.

The Makefile executes notebooks with tools/execute_notebook.py; these tests use the same function.
"""
from __future__ import annotations

import difflib
import hashlib
from pathlib import Path

import nbformat

from tools.execute_notebook import WIDGET_VIEW, execute

NOTEBOOKS = Path(__file__).parent.parent / "notebooks"


def test_reexecuting_04_reproduces_the_committed_file(tmp_path):
    """04 has two BertViz views: their ids used to be random. nbval masks nothing here."""
    committed = NOTEBOOKS / "04_multi_head_attention.ipynb"
    rerun = tmp_path / committed.name
    execute(committed, rerun)
    if rerun.read_bytes() != committed.read_bytes():
        diff = difflib.unified_diff(committed.read_text().splitlines(), rerun.read_text().splitlines(),
                                    "committed", "re-executed", n=0, lineterm="")
        raise AssertionError("re-execution changed the notebook (run `make notebooks` and commit, or find "
                             "what varies):\n" + "\n".join(line[:200] for line in list(diff)[:20]))


def test_streams_are_merged_and_widget_ids_follow_their_place(tmp_path):
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("import sys, time\nfor i in range(5):\n"
                                  "    print(i, flush=True); time.sleep(0.05)"),
        nbformat.v4.new_code_cell("import ipywidgets\nipywidgets.IntProgress(value=3, max=10)"),
    ])
    notebook.metadata["widgets"] = {"stale": "state from an earlier run"}
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = tmp_path / "small.ipynb"
    nbformat.write(notebook, path)
    result = execute(path)
    printed = result.cells[0].outputs
    assert [output.output_type for output in printed] == ["stream"] and printed[0].text == "0\n1\n2\n3\n4\n"
    [widget] = result.cells[1].outputs
    expected = hashlib.sha1(b"small.ipynb:1:0").hexdigest()[:32]
    assert widget.data[WIDGET_VIEW]["model_id"] == expected
    assert "widgets" not in result.metadata, "widget state holds elapsed times: it must not be stored"
    assert all("execution" not in cell.metadata for cell in result.cells), "cell timings must not be recorded"
    assert nbformat.read(path, as_version=4) == result
