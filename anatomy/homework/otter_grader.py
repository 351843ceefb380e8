"""The homework notebooks' `grader`: otter's formative checks, from the homework's metadata tests, on every front-end.

Taught in: 08_homework_cross_attention, 10_homework_sentiment, 19_homework_attention_tests (their import cell:
`grader = notebook_grader("08_homework_cross_attention.ipynb")`, then `grader.check("q1")` after each answer).

A student notebook carries its public tests in its metadata (otter's OK format, `metadata.otter.tests`).
otter-grader 7.0.0 reads them there in JupyterLab and Notebook 7, but on Google Colab `otter.Notebook` wants
a folder of test files: the import cell stopped with "Tests directory ./tests does not exist", and every
check cell then found no `grader`. So the tests are always written out, one `q1.py` per question, into a
temporary folder (removed when the kernel exits), and otter reads that folder: the same files, the same
checks, on every front-end. The notebook read is the one named in the current folder, which the setup cell
makes `notebooks/` (the Korean edition and Colab's clone included): the course's copy of the homework, whose
tests are the student's. A notebook with no tests in its metadata (a master in instructor/, whose tests are
cells) gets an empty folder, where `grader.check("q1")` finds no test ("Test q1 does not exist").
"""
from __future__ import annotations

import atexit
import json
import shutil
import tempfile
from pathlib import Path

import otter


def metadata_tests(notebook: str | Path) -> dict[str, dict]:
    """The OK-format tests a homework notebook carries in its metadata, by question name (none: {})."""
    path = Path(notebook)
    if not path.is_file():
        raise FileNotFoundError(f"no notebook at {str(path)!r} (the folder is {str(Path.cwd())!r}): run the setup "
                                f"cell first (it moves to notebooks/, where the course's copy of this homework is), "
                                f"and keep the homework's file name")
    try:
        metadata = json.loads(path.read_text(encoding="utf-8")).get("metadata", {})
    except (json.JSONDecodeError, AttributeError) as error:
        raise ValueError(f"{path.name} is not a notebook (expected its JSON with a metadata mapping): {error}") from None
    otter_metadata = metadata.get("otter", {}) if isinstance(metadata, dict) else None
    if not isinstance(otter_metadata, dict):
        raise ValueError(f"expected {path.name}'s metadata.otter to be a mapping, got {type(otter_metadata).__name__}")
    tests = otter_metadata.get("tests", {})
    if not isinstance(tests, dict) or (tests and otter_metadata.get("OK_FORMAT") is not True):
        raise ValueError(f"expected {path.name}'s metadata.otter.tests to be a mapping with OK_FORMAT: true, got a "
                         f"{type(tests).__name__} with OK_FORMAT {otter_metadata.get('OK_FORMAT')!r}: open the "
                         f"homework notebook the course handed out")
    return tests


def write_tests(tests: dict[str, dict], folder: Path) -> None:
    """Each test as the file otter reads (`OK_FORMAT = True`, `test = {...}`), named after its question. ASCII
    only (`ascii`, not `repr`): otter opens test files in the locale's encoding, which need not be UTF-8."""
    for name, spec in tests.items():
        if not name.isidentifier():
            raise ValueError(f"an otter question name must be a Python identifier (it names a file), got {name!r}")
        (folder / f"{name}.py").write_text(f"OK_FORMAT = True\n\ntest = {ascii(spec)}\n", encoding="ascii")


def notebook_grader(notebook: str | Path) -> otter.Notebook:
    """otter's `grader` for `notebook`, its metadata tests written to a temporary folder that otter reads."""
    tests = metadata_tests(notebook)
    folder = Path(tempfile.mkdtemp(prefix="anatomy-otter-tests-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    write_tests(tests, folder)
    return otter.Notebook(str(notebook), tests_dir=str(folder))
