"""The homework notebooks' `grader`: otter's formative checks, read from the notebook's own metadata, on every front-end.

Taught in: 08_homework_cross_attention, 10_homework_sentiment, 19_homework_attention_tests (their import cell:
`grader = notebook_grader("08_homework_cross_attention.ipynb")`, then `grader.check("q1")` after each answer).

A student notebook carries its public tests in its metadata (otter's OK format, `metadata.otter.tests`).
otter 7 reads them there in JupyterLab and Notebook 7, but on Google Colab `otter.Notebook` wants a folder of
test files and refuses metadata tests ("Tests directory ./tests does not exist", then "Test q1 does not
exist"). So the tests are always written out, one `q1.py` per question, into a fresh temporary folder, and
otter reads that folder: the same files, the same checks, on every front-end. A notebook with no tests in
its metadata (a homework's master in instructor/, whose tests are cells) gets an empty folder: `grader.check`
then says "Test q1 does not exist", as otter itself does.
"""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

import otter


def metadata_tests(notebook: str | Path) -> dict[str, dict]:
    """The OK-format tests a homework notebook carries in its metadata, by question name (none: {})."""
    path = Path(notebook)
    if not path.is_file():
        raise FileNotFoundError(f"no notebook at {str(path)!r} (the folder is {str(Path.cwd())!r}): run this cell "
                                f"in the folder of the homework notebook, under its own name")
    otter_metadata = json.loads(path.read_text(encoding="utf-8")).get("metadata", {}).get("otter", {})
    tests = otter_metadata.get("tests", {})
    if not isinstance(tests, dict) or (tests and otter_metadata.get("OK_FORMAT") is not True):
        raise ValueError(f"{path.name}'s metadata holds otter tests that are not a mapping in OK format "
                         f"(metadata.otter.tests with OK_FORMAT: true), got {type(tests).__name__} with OK_FORMAT "
                         f"{otter_metadata.get('OK_FORMAT')!r}: open the homework notebook the course handed out")
    return tests


def write_tests(tests: dict[str, dict], folder: Path) -> None:
    """Each test as the file otter reads (`OK_FORMAT = True`, `test = {...}`), named after its question."""
    for name, spec in tests.items():
        if not name.isidentifier():
            raise ValueError(f"an otter question name must be a Python identifier (it names a file), got {name!r}")
        (folder / f"{name}.py").write_text(f"OK_FORMAT = True\n\ntest = {spec!r}\n", encoding="utf-8")


def notebook_grader(notebook: str | Path) -> otter.Notebook:
    """otter's `grader` for `notebook`, its metadata tests written to a temporary folder that otter reads."""
    folder = Path(tempfile.mkdtemp(prefix="anatomy-otter-tests-"))
    write_tests(metadata_tests(notebook), folder)
    return otter.Notebook(str(notebook), tests_dir=str(folder))
