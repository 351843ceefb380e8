"""A batch no submission can stop, and a sandbox per submission (issue #34, items 1, 2, 5): one folder
mixing the solution with a submission per route, graded once by the grader's command (two workers),
then asserted many ways: each route scores 0 on what it forged, with a reason; the solution keeps
full marks; the gradebook has a row for every student. The routes: a file that is not JSON, cells
that are not objects, code nested too deeply to parse and thousands of chained lines, a child that
kills itself, a child that forges an oversized reply, 8 GiB asked of the child and 200 threads, files
left in world-writable folders for a later submission, a classmate's notebook read from the batch
folder, cells that sleep just under the cell limit (the submission's total limit ends them), hidden
inputs stashed in a global and shown by a later public check, a notebook named like another student
inside a student's folder, and two notebooks naming one student."""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from grading_helpers import ONE_THREAD, by_question, gradebook, submission
from test_isolated_grading import ANSWERS, FULL, NAME, assigned  # noqa: F401  (assigned: the built homework)

TOTAL = 100  # seconds per submission in this batch: the sleeper's cells run into it, the solution far from it
SLEEP = 55  # each of the sleeper's two children sleeps this long in one cell (cell limit: 60 s)
STASH = """import builtins
builtins.SEEN = []
def cross_attention_scores(q, k):  # records every input it is handed (the route: hidden inputs kept for later)
    builtins.SEEN.append(f"{float(q.flatten()[0]):.4f}")
    return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
"""
SHOW = "def masked_cross_attention(q, k, v, key_mask):\n    raise ValueError('SEEN ' + ' '.join(builtins.SEEN))\n"
MARKER = "i34-left-by-a-submission"
WRITE = f"""import os
WROTE = []
for folder in ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", os.getcwd(), os.environ.get("TMPDIR", "/tmp")):
    try:
        open(os.path.join(folder, "{MARKER}"), "w").write("a message for the next submission")
        WROTE.append(folder)
    except OSError:
        pass
"""
WRITER_Q1 = "def cross_attention_scores(q, k):\n    assert WROTE, 'could write nowhere'\n" \
            "    return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))\n"
READ = """import glob, os
FOUND = [p for f in ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", os.getcwd(), os.environ.get("TMPDIR", "/tmp"))
         for p in glob.glob(os.path.join(f, "**", "MARKER"), recursive=True)]
for pattern in ("BATCH/**/*.ipynb", "OUT/**/*"):  # classmates' notebooks, the gradebook being written
    FOUND += glob.glob(pattern, recursive=True)
print("FOUND", FOUND)
"""
READER_Q1 = "def cross_attention_scores(q, k):\n    assert not FOUND, f'found {FOUND}'\n" \
            "    return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))\n"
LIMITS = {  # each would run on the machine's limits; the sandbox's stop it
    "q2": "import threading\n_masked = masked_cross_attention\ndef masked_cross_attention(q, k, v, key_mask):\n"
          "    for _ in range(200):\n        threading.Thread(target=threading.Event().wait, daemon=True).start()\n"
          "    return _masked(q, k, v, key_mask)\n",
    "q5": "_swap_in = swap_in\ndef swap_in(model):\n    hoard = torch.empty(8 << 30, dtype=torch.uint8)  # 8 GiB\n"
          "    return _swap_in(model)\n"}
CRASH = {"q2": "import os\ndef masked_cross_attention(q, k, v, key_mask):\n    os._exit(3)  # the child ends mid-call\n",
         "q5": "import os, struct\n_swap_in = swap_in\ndef swap_in(model):\n"
               "    for fd in range(3, 64):  # a reply announcing 1 TiB, on whichever descriptor is the reply pipe\n"
               "        try:\n            os.write(fd, struct.pack('>4sQQ', b'AGW1', 1 << 40, 1 << 40))\n"
               "        except OSError:\n            pass\n    return _swap_in(model)\n"}
DEEP = ("x = " + "(" * 3000 + "1" + ")" * 3000 + "\ny = " + "+".join(["1"] * 30000) + "\n"
        + "a0 = 1\n" + "".join(f"a{i} = a{i - 1} + 1\n" for i in range(1, 5000)))
NESTED = "def swap_in(model):\n    deep = []\n    for _ in range(10000):\n        deep = [deep]\n    return deep\n"


def add_cell(path: Path, source: str) -> Path:
    notebook = nbformat.read(path, as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell(source))
    nbformat.write(notebook, path)
    return path


@pytest.fixture(scope="session")
def batch(assigned, tmp_path_factory):  # noqa: F811
    """Every submission of this file, graded by one run of the grader's command."""
    folder, out = tmp_path_factory.mktemp("batch"), tmp_path_factory.mktemp("batch_graded") / "out"
    solution = assigned / "autograder" / NAME
    write = lambda name, plays, **extra: submission(solution, ANSWERS, folder / name / NAME, plays, **extra)  # noqa: E731
    (folder / "solution").mkdir()
    (folder / "solution" / NAME).write_bytes(solution.read_bytes())
    (folder / "solution" / "leak.ipynb").write_bytes((assigned / "student" / NAME).read_bytes())  # named like a student
    (folder / "malformed.ipynb").write_text('{"cells": [')
    (folder / "cells.ipynb").write_text(json.dumps({"cells": [1, "two", None], "nbformat": 4, "metadata": {}}))
    (folder / "twice").mkdir()
    (folder / "twice" / "cells.ipynb").write_text(json.dumps({"cells": {"not": "a list"}}))  # a second "cells"
    add_cell(write("deep", {"q5": NESTED}), DEEP)
    write("crash", CRASH)
    write("limits", LIMITS)
    write("a_writer", {"q1": WRITER_Q1}, after_imports=WRITE)
    write("z_reader", {"q1": READER_Q1},
          after_imports=READ.replace("MARKER", MARKER).replace("BATCH", str(folder)).replace("OUT", str(out)))
    add_cell(write("sleeper", {}), f"import time\ntime.sleep({SLEEP})\n")
    write("leak", {"q1": STASH, "q2": SHOW})
    zip_path = next((assigned / "autograder").glob("*.zip"))
    command = [sys.executable, "-m", "anatomy_grading", "grade", "-a", zip_path, "-o", out, "-j", "2",
               "--call-timeout", "10", "--cell-timeout", "60", "--total-timeout", str(TOTAL), folder]
    subprocess.run(command, check=True, capture_output=True, timeout=1200, cwd=out.parent, env=os.environ | ONE_THREAD)
    return {p.stem: json.loads(p.read_text()) for p in (out / "results").glob("*.json")}, out, folder


def scores(results):
    return {q: entry["score"] for q, entry in by_question(results).items()}


def test_the_gradebook_has_every_student_and_the_solution_keeps_full_marks(batch):
    results, out, _ = batch
    book = gradebook(out)
    assert set(book) == {"solution", "leak", "malformed", "cells#1", "cells#2", "deep", "crash", "limits", "a_writer",
                         "z_reader", "sleeper"}, sorted(book)
    assert scores(results["solution"]) == FULL, results["solution"]
    assert set(results) == set(book)


def test_what_is_not_a_notebook_scores_zero_with_the_reason(batch):
    results, out, _ = batch
    for name in ("malformed", "cells#1", "cells#2"):
        assert results[name]["score"] == 0 and len(results[name]["tests"]) == 10, results[name]
        assert all("not a Jupyter notebook" in t["output"] for t in results[name]["tests"] if "public" in t["name"])
        assert "not a Jupyter notebook" in (out / "log" / f"{name}.txt").read_text(), "the hidden cases' reason: instructors'"
    review = (out / "review.md").read_text()
    assert "2 notebooks name the student cells" in review, review


def test_a_notebook_named_like_a_student_inside_another_students_folder_is_reported_not_graded(batch):
    results, out, folder = batch
    assert scores(results["solution"]) == FULL and scores(results["leak"])["q1"] == FULL["q1"], "leak: leak's own row"
    section = (out / "review.md").read_text().split("## solution")[1].split("##")[0]
    assert str(folder / "solution" / "leak.ipynb") in section and "not graded" in section, section


def test_code_too_deep_to_parse_or_to_send_costs_only_what_it_touches(batch):
    results, out, _ = batch
    entry = by_question(results["deep"])
    assert scores(results["deep"]) == FULL | {"q5": 0}, results["deep"]
    assert "nested too deeply" in entry["q5"]["output"], entry["q5"]
    assert "does not parse" in (out / "review.md").read_text().split("## deep")[1]


def test_a_child_that_dies_or_forges_a_reply_costs_only_its_question(batch):
    entry = by_question(batch[0]["crash"])
    assert scores(batch[0]["crash"]) == FULL | {"q2": 0, "q5": 0}, batch[0]["crash"]
    assert "stopped" in entry["q2"]["output"] and "malformed reply" in entry["q5"]["output"], entry


@pytest.mark.skipif(os.geteuid() != 0, reason="processes are limited per uid: only a root grader gives children their own")
def test_memory_and_processes_are_limited_well_below_the_machines(batch):
    entry = by_question(batch[0]["limits"])
    assert scores(batch[0]["limits"]) == FULL | {"q2": 0, "q5": 0}, batch[0]["limits"]
    assert "thread" in entry["q2"]["output"] and "allocate" in entry["q5"]["output"], entry


def test_nothing_a_submission_writes_or_the_batch_holds_reaches_another(batch):
    results, out, folder = batch
    assert scores(results["a_writer"]) == FULL, results["a_writer"]  # it wrote (its q1 checks so), in its own child
    assert scores(results["z_reader"]) == FULL, by_question(results["z_reader"])["q1"]  # and found none of it
    held = (out / "log" / "z_reader.txt").read_text().split("\n\n")[0]
    if "mount namespace" in held:  # the whole batch is hidden, not only the submission's own folder
        assert re.search(re.escape(str(folder)) + r"(,|$)", held, re.M), held


def test_a_submission_that_sleeps_is_stopped_by_its_total_limit(batch):
    results, out, _ = batch
    log = (out / "log" / "sleeper.txt").read_text()  # what a hidden case's "failed" hides from the student
    assert f"ran past the grader's limit of {TOTAL} s for one notebook" in log, log[-3000:]
    assert 0 < results["sleeper"]["score"] < 15, results["sleeper"]
    assert float(gradebook(out)["sleeper"]["seconds"]) < TOTAL + 30


def test_public_feedback_never_shows_what_a_hidden_case_handed_the_students_code(batch, assigned):  # noqa: F811
    """The stash route: q1's answer keeps every input; q2's public check shows them. Only q1's public
    inputs may be there (computed here by running the same check on a recorder), none of its hidden ones."""
    from anatomy.homework import cross_attention as hw

    plan = json.loads((assigned / "autograder" / "grading_plan.json").read_text())
    seen = {False: set(), True: set()}
    for case in plan["questions"]["q1"]["cases"]:
        def recorder(q, k, hidden=case["hidden"]):
            seen[hidden].add(f"{float(q.flatten()[0]):.4f}")
            return q @ k.transpose(-2, -1) / q.size(-1) ** 0.5
        assert hw.check_scores.verdict(recorder, **case["kwargs"]) is None
    assert seen[True] - seen[False], "the hidden case hands other inputs than the public one"
    public = {t["name"]: t for t in batch[0]["leak"]["tests"]}["q2 - public"]["output"]
    shown = set(re.search(r"SEEN ([-\d. ]*)", public).group(1).split())
    assert shown and shown <= seen[False], (public, seen)
    for test in batch[0]["leak"]["tests"]:
        assert not any(value in test["output"] for value in seen[True] - seen[False]), test


def test_a_worker_that_dies_costs_only_its_submission(assigned, tmp_path, monkeypatch):  # noqa: F811
    """A worker process killed while grading (out of memory, a crash): that notebook scores 0 with the reason."""
    from anatomy_grading import batch as batches

    dying = tmp_path / "dying-python"
    dying.write_text("#!/bin/sh\nkill -9 $$\n")
    dying.chmod(0o755)
    monkeypatch.setattr(batches.sys, "executable", str(dying))
    options = {"threads": 1, "call_timeout": None, "cell_timeout": None, "total": 30, "hide": []}
    result = batches.grade_in_worker(assigned / "autograder" / NAME, assigned / "autograder" / "grading_plan.json",
                                     tmp_path, options)
    assert result.score() == 0 and len(result.tests) == 10
    assert all("the grader stopped while grading this notebook (exit code -9)" in t["output"] for t in result.tests)
    assert result.flags and "exit code -9" in result.flags[0]
