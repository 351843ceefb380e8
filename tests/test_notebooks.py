"""The series' structure: every notebook is paired, set up, badged, and shows the package's code."""
import re
from pathlib import Path

import jupytext
import nbformat
import pytest

NOTEBOOKS = sorted(Path(__file__).parent.parent.joinpath("notebooks").glob("[0-9][0-9]_*.ipynb"))
SETUP_MARKER = "device = anatomy.setup_notebook(seed=0)"


def cells(path):
    return nbformat.read(path, as_version=4).cells


def test_series_has_its_notebooks():
    names = [path.stem for path in NOTEBOOKS]
    assert [name for name in names if not name.startswith("00_")][:2] == ["01_tokenization", "02_embeddings"]
    assert all(re.fullmatch(r"\d\d_[a-z0-9_]+", name) for name in names)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_jupytext_pair_in_sync(path):
    pair = path.with_suffix(".py")
    assert pair.exists(), f"{path.name} has no jupytext pair {pair.name}; run `make sync`"
    from_py = [(c.cell_type, c.source.strip()) for c in jupytext.read(pair).cells]
    from_ipynb = [(c.cell_type, c.source.strip()) for c in cells(path)]
    assert from_py == from_ipynb, f"{path.name} and {pair.name} differ; run `make sync`"


def test_every_notebook_has_the_identical_setup_cell():
    setups = {}
    for path in NOTEBOOKS:
        found = [c.source for c in cells(path) if c.cell_type == "code" and SETUP_MARKER in c.source]
        assert len(found) == 1, f"{path.name} needs exactly one setup cell"
        setups[path.name] = found[0]
    assert len(set(setups.values())) == 1, f"setup cells differ: {sorted(setups)}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_badge_objectives_takeaways_glossary(path):
    markdown = "\n".join(c.source for c in cells(path) if c.cell_type == "markdown")
    badge = f"colab.research.google.com/github/transformer-anatomy/transformer-anatomy/blob/main/notebooks/{path.name}"
    assert badge in cells(path)[0].source, "the first cell must carry the Open in Colab badge"
    for heading in ["Learning objectives", "Takeaways", "Exercises", "Glossary"]:
        assert re.search(rf"^#+ .*{heading}", markdown, re.M), f"{path.name} lacks a '{heading}' section"
    assert re.search(r"[\uac00-\ud7a3]", markdown), "the glossary needs the Korean terms"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_outputs_are_committed_and_stderr_clean(path):
    code = [c for c in cells(path) if c.cell_type == "code"]
    assert all(c.execution_count for c in code), f"{path.name} is not fully executed; run `make notebooks`"
    stderr = [o.text for c in code for o in c.outputs if o.get("name") == "stderr"]
    assert not stderr, f"{path.name} writes to stderr: {stderr[:2]}"
    errors = [o.ename for c in code for o in c.outputs if o.output_type == "error"]
    assert not errors, f"{path.name} has error outputs: {errors}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_load_magic_and_images_exist(path):
    for cell in cells(path):
        assert "%load" not in cell.source, "never %load package code: use anatomy.show_source"
        for image in re.findall(r"\]\((\.\./images/[^)]+)\)", cell.source):
            assert (path.parent / image).exists(), f"{path.name} references missing {image}"
