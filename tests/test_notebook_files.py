"""Every committed notebook opens where students open it: valid nbformat (Jupyter, Colab and GitHub
refuse or mangle an invalid file), and no widget metadata that GitHub cannot render.

GitHub's notebook viewer fails on the whole file ("Invalid Notebook: the 'state' key is missing from
'metadata.widgets'") when a notebook's metadata.widgets lacks the saved widget state; Colab and
some Jupyter versions write such metadata. tools/execute_notebook.py drops metadata.widgets
altogether (it holds elapsed times), so a committed notebook should carry none, or a complete one.
"""
from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
SKIPPED_FOLDERS = {"build", "node_modules", "__pycache__"}


def committed_notebooks(root: Path = ROOT) -> list[Path]:
    """Every .ipynb of the series: English, Korean (notebooks/ko), instructor masters and the homework's
    student versions (notebooks/NN_homework_*.ipynb); not venvs, builds or checkpoints."""
    return sorted(path for path in root.rglob("*.ipynb")
                  if not any(part.startswith(".") or part in SKIPPED_FOLDERS for part in path.relative_to(root).parts))


def widget_problems(notebook: dict) -> list[str]:
    """Where `notebook` (a notebook's JSON) carries widget metadata without a `state` key."""
    problems = []
    places = [("metadata", notebook.get("metadata", {}))] + [
        (f"cell {index} metadata", cell.get("metadata", {})) for index, cell in enumerate(notebook.get("cells", []))]
    for place, metadata in places:
        if "widgets" not in metadata:
            continue
        widgets = metadata["widgets"]
        if not isinstance(widgets, dict) or not widgets:
            problems.append(f"{place}.widgets is {widgets!r}, not a widget-state entry")
            continue
        for mime, entry in widgets.items():
            if not isinstance(entry, dict) or "state" not in entry:
                problems.append(f"{place}.widgets[{mime!r}] has no 'state' key")
    return problems


NOTEBOOKS = committed_notebooks()


def test_every_kind_of_notebook_is_found():
    names = {path.relative_to(ROOT).as_posix() for path in NOTEBOOKS}
    assert {"notebooks/00_before_transformers.ipynb", "notebooks/ko/11_gpt.ipynb",
            "instructor/10_homework_sentiment.ipynb", "notebooks/08_homework_cross_attention.ipynb"} <= names
    assert len([name for name in names if name.startswith("notebooks/ko/")]) == len(
        [name for name in names if name.count("/") == 1 and name.startswith("notebooks/")])


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_notebook_is_valid_nbformat(path):
    notebook = nbformat.read(path, as_version=nbformat.NO_CONVERT)  # as written, not upgraded
    assert notebook.nbformat == 4, f"{path.name} is nbformat {notebook.nbformat}, not 4"
    nbformat.validate(notebook)  # raises nbformat.ValidationError with the offending place


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_notebook_has_no_widget_metadata_without_state(path):
    problems = widget_problems(nbformat.read(path, as_version=nbformat.NO_CONVERT))
    assert not problems, f"{path.name}: {problems} (GitHub refuses to render it; drop metadata.widgets)"


def test_widget_problems_finds_a_missing_state():
    good = {"metadata": {"widgets": {"application/vnd.jupyter.widget-state+json": {"state": {}, "version_major": 2}}},
            "cells": []}
    bad = {"metadata": {"widgets": {"application/vnd.jupyter.widget-state+json": {"version_major": 2}}},
           "cells": [{"metadata": {"widgets": {}}}]}
    assert widget_problems(good) == [] and widget_problems({"metadata": {}, "cells": []}) == []
    assert widget_problems(bad) == ["metadata.widgets['application/vnd.jupyter.widget-state+json'] has no 'state' key",
                                    "cell 0 metadata.widgets is {}, not a widget-state entry"]
