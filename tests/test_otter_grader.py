"""The homework notebooks' `grader` on Google Colab: otter 7 refuses metadata tests there, ours does not.

Colab is faked the way otter detects it (`otter.check.utils.IPythonInterpreter.COLAB`: "google.colab"
in the running IPython's repr), so the refusal below is otter's own code path, not an imitation of it.
"""
import json
from pathlib import Path

import otter
import pytest
import torch
from otter.check.utils import IPythonInterpreter

from anatomy.homework.otter_grader import metadata_tests, notebook_grader, write_tests

ROOT = Path(__file__).resolve().parents[1]
HOMEWORKS = ["08_homework_cross_attention", "10_homework_sentiment", "19_homework_attention_tests"]


@pytest.fixture(params=[False, True], ids=["jupyter", "colab"])
def colab(request, monkeypatch):
    """Run as otter sees Colab, or as it sees Jupyter (the interpreter otter finds first wins)."""
    interpreter = type(IPythonInterpreter.COLAB.value)
    real = interpreter.running
    monkeypatch.setattr(interpreter, "running",
                        lambda self: request.param if self is IPythonInterpreter.COLAB.value else real(self))
    monkeypatch.chdir(ROOT / "notebooks")
    return request.param


def scores(q, k):  # a right answer to homework 1's question 1
    return q @ k.transpose(-2, -1) / k.size(-1) ** 0.5  # (B, Tq, Ts)


def unscaled(q, k):  # the classic mistake: no 1/sqrt(d)
    return q @ k.transpose(-2, -1)


def test_otter_alone_refuses_the_notebooks_on_colab(colab):
    """What a student met on Colab before: the import cell stopped, and no grader.check could run."""
    if colab:
        with pytest.raises(ValueError, match="Tests directory ./tests does not exist"):
            otter.Notebook("08_homework_cross_attention.ipynb")
    else:
        otter.Notebook("08_homework_cross_attention.ipynb")


@pytest.mark.parametrize("answer, passes", [(scores, True), (unscaled, False)], ids=["right", "unscaled"])
def test_the_grader_checks_an_answer_on_colab_as_in_jupyter(colab, answer, passes):
    grader = notebook_grader("08_homework_cross_attention.ipynb")
    result = grader.check("q1", {"cross_attention_scores": answer, "torch": torch})
    assert result.passed_all == passes
    assert result.grade == (1.0 if passes else 0.0)


@pytest.mark.parametrize("homework", HOMEWORKS)
def test_every_homework_gets_a_grader_whose_files_are_its_metadata(colab, homework):
    notebook = f"{homework}.ipynb"
    tests = metadata_tests(notebook)
    grader = notebook_grader(notebook)
    folder = Path(grader._tests_dir)
    assert sorted(p.stem for p in folder.glob("*.py")) == sorted(tests), "one file per question"
    for name, spec in tests.items():
        written = {}
        exec((folder / f"{name}.py").read_text(encoding="utf-8"), written)
        assert written["OK_FORMAT"] is True and written["test"] == spec


def test_a_notebook_that_is_not_there_is_named(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError, match=r"no notebook at '08_homework_cross_attention.ipynb' \(the folder is"):
        notebook_grader("08_homework_cross_attention.ipynb")


@pytest.mark.parametrize("metadata, found", [
    ({"otter": {"OK_FORMAT": False, "tests": {"q1": {}}}}, "metadata.otter.tests to be a mapping with OK_FORMAT: true, "
                                                           "got a dict with OK_FORMAT False"),
    ({"otter": {"OK_FORMAT": True, "tests": ["q1"]}}, "metadata.otter.tests to be a mapping with OK_FORMAT: true, "
                                                      "got a list with OK_FORMAT True"),
    ({"otter": ["q1"]}, "metadata.otter to be a mapping, got list")], ids=["not OK format", "not a mapping", "otter a list"])
def test_tests_otter_cannot_read_as_files_are_refused(tmp_path, metadata, found):
    path = tmp_path / "copy.ipynb"
    path.write_text(json.dumps({"cells": [], "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}))
    with pytest.raises(ValueError, match="expected copy.ipynb's " + found.replace(".", r"\.")):
        metadata_tests(path)


def test_a_file_that_is_not_a_notebook_is_refused(tmp_path):
    path = tmp_path / "copy.ipynb"
    path.write_text("print('hello')")
    with pytest.raises(ValueError, match=r"copy.ipynb is not a notebook \(expected its JSON with a metadata mapping\)"):
        metadata_tests(path)


def test_test_files_are_ascii_and_read_back_as_the_spec(tmp_path):
    """otter opens test files in the locale's encoding (cp949 on a Korean Windows): a Korean message survives."""
    spec = {"name": "q1", "points": 1, "suites": [{"cases": [{"code": ">>> 1 + 1\n2", "hidden": False, "locked": False,
                                                              "failure_message": "틀렸다: 다시 보라"}],
                                                   "scored": True, "setup": "", "teardown": "", "type": "doctest"}]}
    write_tests({"q1": spec}, tmp_path)
    text = (tmp_path / "q1.py").read_bytes()
    assert text.isascii()
    written = {}
    exec(text.decode("ascii"), written)
    assert written["test"] == spec


def test_the_korean_edition_reads_the_course_copy_of_its_homework(monkeypatch):
    """From notebooks/ko/, the setup cell moves to notebooks/ (anatomy.display.notebook.enter_the_english_folder):
    the grader reads notebooks/NN.ipynb, whose tests are the Korean edition's own."""
    from anatomy.display.notebook import enter_the_english_folder

    monkeypatch.chdir(ROOT / "notebooks" / "ko")
    monkeypatch.delenv("ANATOMY_EDITION", raising=False)
    enter_the_english_folder()
    monkeypatch.delenv("ANATOMY_EDITION", raising=False)
    for homework in HOMEWORKS:
        assert metadata_tests(f"{homework}.ipynb") == metadata_tests(ROOT / "notebooks" / "ko" / f"{homework}.ipynb")
        assert sorted(p.stem for p in Path(notebook_grader(f"{homework}.ipynb")._tests_dir).glob("*.py")) == sorted(
            metadata_tests(f"{homework}.ipynb"))


@pytest.mark.parametrize("master", ["08_homework_cross_attention", "19_homework_attention_tests"])
def test_a_master_gets_a_grader_with_no_tests_as_otter_gives_it(colab, master):
    """A master (instructor/) holds its tests in cells, not metadata: its import cell runs, and a check
    would say what otter says of a missing test."""
    grader = notebook_grader(ROOT / "instructor" / f"{master}.ipynb")
    assert metadata_tests(ROOT / "instructor" / f"{master}.ipynb") == {}
    with pytest.raises(FileNotFoundError, match="Test q1 does not exist"):
        grader.check("q1")


def test_a_question_name_that_cannot_name_a_file_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"must be a Python identifier \(it names a file\), got '../q1'"):
        write_tests({"../q1": {"name": "q1"}}, tmp_path)
