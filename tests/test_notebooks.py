"""The series' structure: every notebook is paired, set up, badged, and shows the package's code."""
import re
from pathlib import Path

import jupytext
import nbformat
import pytest

from tools import repository

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
    badge = repository.colab_badge(repository.address(), path.name)
    assert badge in cells(path)[0].source, "the first cell must carry the Open in Colab badge (tools/repository.py)"
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


WALL_CLOCK = re.compile(r"perf_counter|time\.time\(|\.seconds\b|timeit")


@pytest.mark.parametrize("path", NOTEBOOKS + sorted(NOTEBOOKS[0].parent.parent.glob("instructor/[0-9][0-9]_*.ipynb")),
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_cell_reads_the_clock(path):
    """A printed time changes at every re-execution, so `make notebooks` would leave git dirty:
    timings belong in `make bench`."""
    clocks = [c.source[:80] for c in cells(path) if c.cell_type == "code" and WALL_CLOCK.search(c.source)]
    assert not clocks, f"{path.name} reads the clock in {clocks}: time it in benchmarks/ (make bench) instead"


# The prose checks below cover every notebook of the series.
PROSE_CHECKED = NOTEBOOKS
HANGUL = re.compile(r"[\uac00-\ud7a3]")


def markdown_of(path):
    return "\n".join(c.source for c in cells(path) if c.cell_type == "markdown")


def section(markdown, heading):
    """The lines under the first `## <heading>` up to the next heading of level 1 or 2."""
    match = re.search(rf"^##+ [^\n]*{heading}[^\n]*\n(.*?)(?=^#{{1,2}} |\Z)", markdown, re.M | re.S)
    return match.group(1) if match else None


@pytest.mark.parametrize("path", PROSE_CHECKED, ids=lambda p: p.name)
def test_korean_summary_references_and_appendix(path):
    markdown = markdown_of(path)
    summary = section(markdown, "핵심 요약")
    assert summary is not None, f"{path.name} needs a '## 핵심 요약' section after the takeaways"
    lines = [line for line in summary.splitlines() if line.startswith("- ") and HANGUL.search(line)]
    assert 3 <= len(lines) <= 6, f"{path.name}: 핵심 요약 needs 3-6 Korean lines, has {len(lines)}"
    references = section(markdown, "References")
    assert references and references.count("\n- ") + references.startswith("- ") >= 2, \
        f"{path.name} needs a References section listing real sources"
    headings = re.findall(r"^## (.+)$", markdown, re.M)
    assert headings and headings[-1] == "For the curious", \
        f"{path.name} must end with the '## For the curious' appendix; its last section is {headings[-1:]}"
    order = [next(i for i, h in enumerate(headings) if name in h)
             for name in ["Takeaways", "Exercises", "Glossary", "핵심 요약", "References", "For the curious"]]
    assert order == sorted(order), f"{path.name}: sections out of order: {headings}"


@pytest.mark.parametrize("path", PROSE_CHECKED, ids=lambda p: p.name)
def test_every_exercise_has_a_hint(path):
    exercises = section(markdown_of(path), "Exercises")
    items = re.split(r"^\d+\. ", exercises, flags=re.M)[1:]
    assert items, f"{path.name} has no numbered exercises"
    missing = [i + 1 for i, item in enumerate(items) if "*Hint:*" not in item]
    assert not missing, f"{path.name}: exercise(s) {missing} need a '*Hint:*'"


@pytest.mark.parametrize("path", PROSE_CHECKED, ids=lambda p: p.name)
def test_prose_cites_real_sources_and_uses_the_series_terms(path):
    markdown = markdown_of(path)
    vague = re.findall(r"(?i)\b(?:the|nyu) seed\b|\bseed chapter\b|\bseed's\b|\bthe notes\b", markdown)
    assert not vague, f"{path.name} says {vague}: cite the book, course or paper instead (SOURCES.md)"
    for old, new in [("보류 데이터", "홀드아웃(평가용) 데이터"), ("사전 정규화", "Pre-LN"), ("사후 정규화", "Post-LN"),
                     ("크로스 어텐션", "교차 어텐션"), ("교차 주의", "교차 어텐션")]:
        assert old not in markdown, f"{path.name} uses '{old}'; the series says '{new}'"


MASTERS = sorted(Path(__file__).parent.parent.joinpath("instructor").glob("[0-9][0-9]_*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS + MASTERS, ids=lambda p: p.name)
def test_every_ignored_output_says_why_and_nbval_sees_the_marker(path):
    """nbval reads a marker only when the comment is exactly NBVAL_IGNORE_OUTPUT (a reason on the same
    line makes it compare the cell after all); the next line says why the output cannot be compared."""
    for cell in cells(path):
        lines = [line.strip() for line in cell.source.splitlines()]
        for i, line in enumerate(lines):
            if line.startswith("#") and "NBVAL_" in line:
                assert line.lstrip("#").strip() in ("NBVAL_IGNORE_OUTPUT", "NBVAL_SKIP", "NBVAL_RAISES_EXCEPTION"), \
                    f"{path.name}: nbval ignores the marker {line!r}; put the marker alone on its line"
                reason = lines[i + 1] if i + 1 < len(lines) else ""
                assert SETUP_MARKER in cell.source or reason.startswith("# not compared: "), \
                    f"{path.name}: the cell starting {lines[0]!r} should say on the next line '# not compared: <why>'"
