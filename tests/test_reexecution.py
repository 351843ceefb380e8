"""`make notebooks` on an unchanged tree leaves git clean: re-execution reproduces a notebook byte for byte.

The Makefile executes notebooks with tools/execute_notebook.py; these tests use the same function.
"""
from __future__ import annotations

import difflib
import subprocess
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


def small_notebook(path: Path, cells: list[tuple[str, str]]) -> Path:
    """A notebook of code cells whose committed outputs are given: (source, committed stdout)."""
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell(source, outputs=[nbformat.v4.new_output("stream", name="stdout", text=text)])
        for source, text in cells])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, path)
    return path


def printed(notebook: nbformat.NotebookNode) -> list[str]:
    return [cell.outputs[0].text for cell in notebook.cells]


def test_outputs_equal_but_for_float_noise_keep_their_committed_bytes(tmp_path):
    """What another CPU computes differs in the last digit: `make notebooks` must leave git clean."""
    path = small_notebook(tmp_path / "noise.ipynb", [
        ("print(f'{0.6865:.3f}')", "0.687\n"),                  # this machine prints 0.686 (0.6865 is below the boundary)
        ("# NBVAL_IGNORE_OUTPUT (sampled text)\nprint('new text')", "old text\n"),
    ])
    assert printed(execute(path)) == ["0.687\n", "old text\n"], "noise alone rewrote a committed output"


def test_a_real_change_is_written_and_frees_the_ignored_cells(tmp_path):
    path = small_notebook(tmp_path / "change.ipynb", [
        ("print(4, 'of 5')", "3 of 5\n"),
        ("# NBVAL_IGNORE_OUTPUT (sampled text)\nprint('new text')", "old text\n"),
    ])
    assert printed(execute(path)) == ["4 of 5\n", "new text\n"]


def test_refresh_writes_every_output(tmp_path):
    path = small_notebook(tmp_path / "refresh.ipynb", [("print(f'{0.6865:.3f}')", "0.687\n")])
    assert printed(execute(path, refresh=True)) == ["0.686\n"]


def test_an_edited_ignored_cell_gets_its_new_outputs_though_the_sync_kept_its_old_ones(tmp_path):
    """`make notebooks/NN.executed` syncs the edited .py into the .ipynb first, and jupytext keeps each
    edited cell's old outputs: compared with the file, the cell looked unchanged and kept text that its
    new source no longer prints. Compared with git's HEAD, it is a new cell and keeps what it printed."""
    path = small_notebook(tmp_path / "edited.ipynb", [
        ("print('same')", "same\n"),
        ("# NBVAL_IGNORE_OUTPUT (a trained figure)\nprint('74.1 %')", "74.1 %\n"),
    ])
    git = lambda *args: subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],  # noqa: E731
                                       cwd=tmp_path, check=True, capture_output=True)
    git("init", "-q")
    git("add", path.name)
    git("commit", "-q", "-m", "committed")
    synced = nbformat.read(path, as_version=4)
    synced.cells[1].source = "# NBVAL_IGNORE_OUTPUT (a trained figure)\nprint('73.7 %')"  # its outputs stay 74.1 %
    nbformat.write(synced, path)
    assert printed(execute(path)) == ["same\n", "73.7 %\n"]
