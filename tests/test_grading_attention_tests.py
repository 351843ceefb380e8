"""Homework 3 played through the trusted grader (anatomy_grading.grader.grade: static review, a
sandboxed child running the notebook, the implementations built in a process of their own whose requests the
grader relays): the reference suite earns
full marks, an untouched notebook 0, a shape-only suite little (saying what it misses), an always
failing suite 0; a hanging test, a cell that fails to import, a prying test each cost their own
question only; tests that mute, redirect or fake the output earn nothing and leave the batch as it was;
a notebook from the Korean edition gets Korean feedback."""
from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest

from anatomy_grading import grader
from grading_helpers import assign, by_question, grade_folder, gradebook

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = ("q1", "q2", "q3", "q4", "q5")
IMPORTS = "import torch\nimport torch.nn.functional as F\nfrom torch import nn\nfrom anatomy.homework import attention_tests as hw\n"
REFERENCE_LISTS = {
    "q1": "[test_attention_matches_pytorch, test_attention_mask_matches_pytorch, test_fully_masked_row_is_zero]",
    "q2": "[test_causal_mask_square, test_causal_mask_queries_are_last]", "q3": "[test_mha_matches_pytorch]",
    "q4": "[test_decoder_is_causal, test_decoder_ignores_padded_memory, test_decoder_reads_every_source_token]",
    "q5": "[test_cache_matches_full]"}
EMPTY = dict.fromkeys(QUESTIONS, "[]")


@pytest.fixture
def unreviewed(monkeypatch):
    """The grader without homework 3's own review (plan.SUITE's "review", the allowlist), as for a route the review
    would miss: what these tests hold is what the runs themselves close (forks, the seal, the server), behind the
    review (which refuses each of their probes first: test_every_probe_of_the_runs_is_refused_by_the_review_first)."""
    from anatomy_grading import plan
    monkeypatch.delitem(plan.SUITE, "review")


def reference_code() -> str:
    text = (ROOT / "instructor" / "attention_tests_reference.py").read_text()
    return text.split('"""', 2)[2].split("\n\nSUITE = ")[0]


def graded(tmp_path: Path, code: str, lists: dict[str, str], heading: str = "# Homework 3: attention tests") -> grader.Result:
    plan = {"assignment": "19_homework_attention_tests", "template": [IMPORTS],
            "questions": {q: {"points": 3.0, "cases": [{"check": "check_tests", "args": [{"answer": f"{q}_tests"}],
                                                         "kwargs": {"question": q, "seed": 0}, "hidden": False}]}
                          for q in QUESTIONS}}
    (tmp_path / "grading_plan.json").write_text(json.dumps(plan))
    cells = [nbformat.v4.new_markdown_cell(heading), nbformat.v4.new_code_cell(IMPORTS), nbformat.v4.new_code_cell(code)]
    cells += [nbformat.v4.new_code_cell(f"{q}_tests = {lists[q]}") for q in QUESTIONS]
    path = tmp_path / "student" / "19_homework_attention_tests.ipynb"
    path.parent.mkdir()
    nbformat.write(nbformat.v4.new_notebook(cells=cells), path)
    return grader.grade(path, tmp_path / "grading_plan.json", total=120.0)


def scores(result: grader.Result) -> dict[str, float]:
    return {t["question"]: t["score"] for t in result.tests}


def outputs(result: grader.Result) -> dict[str, str]:
    return {t["question"]: t["output"] for t in result.tests}


def test_reference_suite_full_marks(tmp_path):
    result = graded(tmp_path, reference_code(), REFERENCE_LISTS)
    assert scores(result) == dict.fromkeys(QUESTIONS, 3.0), outputs(result)
    assert result.flags == []


def test_untouched_notebook_scores_zero(tmp_path):
    result = graded(tmp_path, "", EMPTY)
    assert scores(result) == dict.fromkeys(QUESTIONS, 0.0)
    assert all("no test functions" in line for line in outputs(result).values())


SHAPES = '''
def test_attention_shapes(impl):
    out, weights = impl.attention(torch.randn(2, 3, 8), torch.randn(2, 5, 8), torch.randn(2, 5, 6))
    assert out.shape == (2, 3, 6) and weights.shape == (2, 3, 5)


def test_causal_shape(impl):
    assert impl.causal_mask(4).shape == (4, 4)
'''


def test_shape_only_suite_scores_low_and_says_what_it_misses(tmp_path):
    result = graded(tmp_path, SHAPES, EMPTY | {"q1": "[test_attention_shapes]", "q2": "[test_causal_shape]"})
    assert 0 < sum(scores(result).values()) < 1.0
    assert "not caught: " in outputs(result)["q1"] and "a scaling error" in outputs(result)["q1"]


def test_always_failing_suite_scores_zero(tmp_path):
    result = graded(tmp_path, "def test_no(impl):\n    assert False\n", dict.fromkeys(QUESTIONS, "[test_no]"))
    assert scores(result) == dict.fromkeys(QUESTIONS, 0.0)
    assert all("fails on the correct implementation" in line for line in outputs(result).values())


def test_a_hanging_test_costs_its_own_question_only(tmp_path):
    code = reference_code() + "\n\ndef test_hangs(impl):\n    while True:\n        pass\n"
    result = graded(tmp_path, code, REFERENCE_LISTS | {"q1": "[test_hangs]"})
    assert scores(result) == {"q1": 0.0, "q2": 3.0, "q3": 3.0, "q4": 3.0, "q5": 3.0}, outputs(result)
    assert "scores 0" in outputs(result)["q1"]


def test_prying_test_scores_zero_for_its_question_only(tmp_path):
    code = reference_code() + "\n\nimport inspect\n\ndef test_pry(impl):\n    assert 'bug' in inspect.getsource(impl.attention)\n"
    result = graded(tmp_path, code, REFERENCE_LISTS | {"q2": "[test_pry]"})
    assert scores(result)["q2"] == 0.0 and scores(result)["q1"] == 3.0, outputs(result)
    assert "`.getsource`" in outputs(result)["q2"] or "the module `inspect`" in outputs(result)["q2"]


def test_korean_submission_gets_korean_feedback(tmp_path):
    result = graded(tmp_path, SHAPES, EMPTY | {"q1": "[test_attention_shapes]"}, "# 숙제 3: 어텐션 테스트 작성하기\n\n각 문항의 테스트를 작성하세요.")
    assert "잡지 못한 버그" in outputs(result)["q1"] and "스케일링 오류" in outputs(result)["q1"]
    lines = outputs(result)["q1"].split("\n")  # review_korean_messages B: a line each, not joined with "; "
    assert len(lines) == 2 and lines[1].startswith("잡지 못한 버그: ") and "습니다;" not in outputs(result)["q1"], lines


# The homework as handed out: instructor/assign.py builds the master, `python -m anatomy_grading grade`
# grades a folder with its autograder (as `make homework` and `make grade` do).

NAME = "19_homework_attention_tests.ipynb"
POINTS = {"q1": 4.0, "q2": 2.0, "q3": 3.0, "q4": 3.0, "q5": 3.0}


FAKE = "q1: 4/4 q2: 2/2 q3: 3/3 q4: 3/3 q5: 3/3 - your tests caught 26 of 26 planted bugs. All tests passed!"
FORGED = {  # tests that mute or redirect stdout and stderr to hide or fake the grader's output; q5 stays honest
    "top": "import contextlib, io\nMUTED = contextlib.ExitStack()  # muted for the rest of the child's life\n"
           "MUTED.enter_context(contextlib.redirect_stdout(io.StringIO()))\n"
           f"MUTED.enter_context(contextlib.redirect_stderr(io.StringIO()))\nprint({FAKE!r})\n",
    "q1": "import io\n\ndef test_fake_output(impl):\n    impl.causal_mask(2)\n    for fd in range(1, 256):  # the log, "
          "the grader's pipes...\n        try:\n            io.FileIO(fd, 'w', closefd=False).write("
          f"{FAKE.encode()!r} + bytes(64))\n        except (OSError, ValueError):\n            pass\n\nq1_tests = [test_fake_output]",
    "q2": "import contextlib, io\n\ndef test_redirected(impl):\n    with contextlib.redirect_stdout(io.StringIO()), "
          f"contextlib.redirect_stderr(io.StringIO()):\n        impl.causal_mask(4)\n    print({FAKE!r})\n\nq2_tests = [test_redirected]",
    "q3": "import os, sys\n\ndef test_devnull(impl):\n    sys.stdout = sys.stderr = open(os.devnull, 'w')\n"
          "    impl.MultiHeadAttention(8, 2)\n\nq3_tests = [test_devnull]",
    "q4": "import os\n\ndef test_dup2(impl):\n    null = os.open(os.devnull, os.O_WRONLY)\n    os.dup2(null, 1)\n"
          "    os.dup2(null, 2)\n    impl.DecoderLayer(8, 2, 16)\n\nq4_tests = [test_dup2]"}


def forged(solution: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The master's solution with q1-q4's answer cells replaced by FORGED and a muting cell before them."""
    for question in ("q1", "q2", "q3", "q4"):
        cell = next(c for c in solution.cells if c.cell_type == "code" and f"{question}_tests = [" in c.source)
        cell.source = FORGED[question]
    first = next(i for i, c in enumerate(solution.cells) if c.cell_type == "code" and FORGED["q1"] == c.source)
    solution.cells.insert(first, nbformat.v4.new_code_cell(FORGED["top"]))
    return solution


@pytest.fixture(scope="module")
def handed_out(tmp_path_factory):
    assigned = assign(ROOT / "instructor" / NAME, tmp_path_factory.mktemp("homework3"), secret="test secret")
    folder = tmp_path_factory.mktemp("submissions")
    for student, notebook in (("solution", assigned / "autograder" / NAME), ("untouched", assigned / "student" / NAME),
                              ("untouched_ko", ROOT / "notebooks" / "ko" / NAME)):
        (folder / student).mkdir()
        (folder / student / NAME).write_bytes(notebook.read_bytes())
    (folder / "not_a_notebook").mkdir()  # beside the others, in the same batch (issue #42, item 5)
    (folder / "not_a_notebook" / NAME).write_text("{not json")
    hanging = nbformat.read(assigned / "autograder" / NAME, as_version=4)
    hanging.cells.append(nbformat.v4.new_code_cell("def test_hangs(impl):\n    while True:\n        pass\n\n\nq1_tests = [test_hangs]"))
    (folder / "hangs_q1").mkdir()
    nbformat.write(hanging, folder / "hangs_q1" / NAME)
    (folder / "forged").mkdir()
    nbformat.write(forged(nbformat.read(assigned / "autograder" / NAME, as_version=4)), folder / "forged" / NAME)
    out = tmp_path_factory.mktemp("graded") / "out"
    return grade_folder(assigned, folder, out), out


def test_master_full_marks_student_versions_zero_through_the_grader(handed_out):
    results, out = handed_out
    questions = {student: by_question(result) for student, result in results.items()}
    assert {q: e["score"] for q, e in questions["solution"].items()} == POINTS, questions["solution"]
    book = gradebook(out)
    assert float(book["solution"]["total"]) == 15 and book["untouched"]["total"] == book["untouched_ko"]["total"] == "0"
    assert all("no test functions" in e["output"] for e in questions["untouched"].values())
    assert all("테스트" in e["output"] for e in questions["untouched_ko"].values()), questions["untouched_ko"]


def test_a_broken_or_hanging_submission_costs_only_itself_in_the_batch(handed_out):
    results, out = handed_out
    questions = {student: by_question(result) for student, result in results.items()}
    assert set(gradebook(out)) == {"solution", "untouched", "untouched_ko", "not_a_notebook", "hangs_q1", "forged"}
    assert {q: e["score"] for q, e in questions["solution"].items()} == POINTS, "the rest of the batch is unaffected"
    assert all(e["score"] == 0 and "not a Jupyter notebook" in e["output"] for e in questions["not_a_notebook"].values())
    assert {q: e["score"] for q, e in questions["hangs_q1"].items()} == POINTS | {"q1": 0.0}, questions["hangs_q1"]
    assert "scores 0" in questions["hangs_q1"]["q1"]["output"], questions["hangs_q1"]["q1"]


def test_tests_that_mute_or_fake_the_output_earn_nothing_and_the_batch_is_unaffected(handed_out):
    """Tests (and a top-level cell) that redirect or mute stdout and stderr and print a forged report, or write
    it to every descriptor they hold, the grader's pipes included: the grades come from the checks run outside
    the child, so q1-q4 score 0 (each refused by the review's allowlist: io, contextlib, sys, os; flagged; the top
    cell's muting, outside the answers, runs and is flagged), the honest q5 keeps its
    points, the forged report reaches no feedback, and the rest of the batch grades as without it."""
    results, out = handed_out
    questions = {student: by_question(result) for student, result in results.items()}
    forger = questions["forged"]
    assert {q: e["score"] for q, e in forger.items()} == dict.fromkeys(("q1", "q2", "q3", "q4"), 0.0) | {"q5": 3.0}, forger
    assert all("flagged for your instructor" in forger[q]["output"] for q in ("q1", "q2", "q3", "q4")), forger  # the review
    book = gradebook(out)
    assert book["forged"]["total"] == "3" and book["forged"]["needs_review"] == "yes", book["forged"]
    assert {q: e["score"] for q, e in questions["solution"].items()} == POINTS and float(book["solution"]["total"]) == 15
    assert not [path.name for path in (out / "feedback").iterdir() if "26 of 26" in path.read_text()]
    assert not [student for student, result in results.items() if "26 of 26" in json.dumps(result)]


def test_the_masters_solution_is_the_reference_suite():
    """The master's solution cells hold the reference suite's tests as they are (two copies must not drift)."""
    master = (ROOT / "instructor" / "19_homework_attention_tests.py").read_text()
    chunks = re.findall(r"^def .*?(?=\n\n\n|\Z)", reference_code(), re.S | re.M)
    assert len(chunks) == 11 and all(chunk in master for chunk in chunks), [c[:60] for c in chunks if c not in master]
    for question, tests in REFERENCE_LISTS.items():
        assert f"{question}_tests = {tests}" in master


CHEATS = '''
FIRST = {}


def test_reads_the_bug(impl):
    assert not any(isinstance(v, str) and not v.startswith("eq") for v in impl.KVCache().__getstate__().values())


def test_record_and_compare(impl):
    torch.manual_seed(1)
    q, k, v = torch.randn(2, 3, 4), torch.randn(2, 5, 4), torch.randn(2, 5, 6)
    out = impl.attention(q, k, v)[0]
    FIRST.setdefault("out", out)
    assert torch.allclose(FIRST["out"], out)


def test_counts(impl):
    global CALLS
    CALLS = 1


def test_writes(impl):
    open("out.txt", "w").write("x")


import time


def test_times(impl):
    start = time.time()
    impl.causal_mask(3)
    assert time.time() - start < 1
'''


def test_cheats_score_zero_and_are_flagged_by_the_grader(tmp_path):
    """review_hw3 items 1-3: a test reading the bug off __getstate__, one recording its first run, a
    global counter, a file write, `import time`: each zeroes its own question and is flagged."""
    lists = {"q1": "[test_record_and_compare]", "q2": "[test_times]", "q3": "[test_writes]", "q4": "[test_counts]",
             "q5": "[test_reads_the_bug]"}
    result = graded(tmp_path, CHEATS, lists)
    assert scores(result) == dict.fromkeys(QUESTIONS, 0.0), outputs(result)
    said = outputs(result)
    assert "state kept from one run to the next" in said["q1"] and "time" in said["q2"] and "open" in said["q3"]
    assert "global CALLS" in said["q4"] and "__getstate__" in said["q5"]
    assert all("flagged for your instructor" in line for line in said.values()), said
    assert {flag.split(":")[0] for flag in result.flags} >= set(QUESTIONS), result.flags


HONEST = '''
def test_weights_monotonic_in_score(impl):
    """Homework 3: rows sum to one, and a larger score gets a larger weight."""
    no_bug = torch.tensor([[[1.0, 2.0, 3.0]]])
    _, w = impl.attention(no_bug, no_bug, no_bug)
    assert w.shape == (1, 1, 1), "inspect the weights"
    torch.testing.assert_close(w.sum(-1), torch.ones(1, 1))
'''


def test_honest_words_are_not_refused_by_the_grader(tmp_path):
    """review_hw3 item 4: "homework" in a docstring, `monotonic` inside a test's name, "inspect" in an
    assert message, a variable `no_bug`: the reference suite with such a test keeps full marks."""
    lists = REFERENCE_LISTS | {"q1": REFERENCE_LISTS["q1"][:-1] + ", test_weights_monotonic_in_score]"}
    result = graded(tmp_path, reference_code() + "\n" + HONEST, lists)
    assert scores(result) == dict.fromkeys(QUESTIONS, 3.0), outputs(result)
    assert result.flags == []


def test_the_notebooks_limit_leaves_every_case_its_clock_backstop():
    """A question's budget is CPU time, its limit on the clock QUESTION_FACTOR times that (clock.py); the notebook's
    limit must hold every case's clock, counted from the master's check calls, or one slow question would cost
    the questions after it; and stay within Gradescope's most, 40 minutes (twelfth reading B4)."""
    from anatomy.homework.attention_tests import clock, mutation
    master = (ROOT / "instructor" / "19_homework_attention_tests.py").read_text()
    cases = len(re.findall(r"^hw\.check_tests\(q\d_tests", master, flags=re.M))
    total = grader.TOTAL["19_homework_attention_tests"]
    assert cases == 10 and cases * clock.QUESTION_FACTOR * mutation.QUESTION_SECONDS < total <= 2400  # Gradescope's most


def test_a_late_answer_on_a_busy_machine_costs_an_honest_suite_nothing(tmp_path, monkeypatch):
    """CI, session 9: on a loaded machine one run of the reference suite's q1 took more than 10 s on the clock,
    and the grader's wait, 10 s, zeroed the question ("did not finish within 10 s"). A run's limit is now its
    fork's CPU time (clock.py) and the grader waits clock.WALL_FACTOR times that, and checks.SLACK more: with
    the implementation's first answer 12 s late (as on a machine busy with other work), full marks."""
    import time
    from anatomy.homework.attention_tests import server_link
    relay, late = server_link.Server.relay, []

    def slow(self, message, tensors, deadline):
        if not late:
            late.append(message.get("op"))
            time.sleep(12)
        return relay(self, message, tensors, deadline)
    monkeypatch.setattr(server_link.Server, "relay", slow)
    result = graded(tmp_path, reference_code(), REFERENCE_LISTS)
    assert late and scores(result) == dict.fromkeys(QUESTIONS, 3.0), outputs(result)


def test_an_implementation_that_stops_is_not_called_the_tests_time_limit(tmp_path, monkeypatch):
    """Eleventh reading B3: when the implementation's process stopped (over its memory on a huge input, say), the
    relay's failure was worded as the run's time limit. Now the feedback says the implementation stopped, and why;
    the other questions keep their marks."""
    from anatomy.homework.attention_tests import mutation, server_link
    relay = server_link.Server.relay

    def dies(self, message, tensors, deadline):
        if message.get("op") and "q1" in dies.__dict__.setdefault("seen", ["q1"]):
            dies.seen.clear()
            raise server_link.ServerFailed("stopped")
        return relay(self, message, tensors, deadline)
    monkeypatch.setattr(server_link.Server, "relay", dies)
    result = graded(tmp_path, reference_code(), REFERENCE_LISTS)
    assert scores(result) == {"q1": 0.0, "q2": 3.0, "q3": 3.0, "q4": 3.0, "q5": 3.0}, outputs(result)
    assert outputs(result)["q1"] == mutation.say("implementation_failed", "en", why="stopped"), outputs(result)["q1"]


WAKES = """
import linecache
import select


def test_counts_the_childs_wakes(impl):
    status = linecache.getlines("/proc/1/status")
    position = int(linecache.getlines("/proc/self/stat")[0].split()[0])
    print("WAKES", position, *[line.split()[1] for line in status if line.startswith("voluntary_ctxt_switches")])
    select.select([], [], [], 0.6 if position % 2 else 0.05)
"""


def test_the_childs_counters_do_not_count_how_long_a_run_took(tmp_path, unreviewed):
    """Eleventh reading A1: the child woke every 50 ms to read its fork's CPU time, so its voluntary context
    switches (/proc/1/status) rose by 14 after a run that waited 0.6 s and by 3 after one that waited 0.05 s: a
    counter a test could write (by waiting, no CPU time) and the next run read. The kernel now counts a run's CPU
    time in the fork, and the child waits once: the rise is the same after a long and a short run."""
    result = graded(tmp_path, WAKES, EMPTY | {"q1": "[test_counts_the_childs_wakes]"})
    seen = [(int(p), int(s)) for p, s in re.findall(r"WAKES (\d+) (\d+)", "\n".join(result.log))]
    rises = {parity: [b[1] - a[1] for a, b in zip(seen, seen[1:]) if a[0] % 2 == parity and b[0] == a[0] + 1]
             for parity in (0, 1)}  # after a short (even) and a long (odd) run, between runs in one child
    assert len(rises[0]) >= 5 and len(rises[1]) >= 5, seen
    assert sum(rises[1]) / len(rises[1]) - sum(rises[0]) / len(rises[0]) < 3, rises


def test_korean_submission_gets_korean_timeout_and_refusal(tmp_path):
    """review_hw3 item 5: a Korean-edition notebook's hanging test and forbidden use are told in Korean;
    review_korean_messages B: what the review refused too (it was English: "state kept from one run to the next")."""
    code = reference_code() + "\n\ndef test_hangs(impl):\n    while True:\n        pass\n" + CHEATS
    lists = REFERENCE_LISTS | {"q1": "[test_hangs]", "q2": "[test_writes]", "q4": "[test_record_and_compare]"}
    result = graded(tmp_path, code, lists, "# 숙제 3: 어텐션 테스트 작성하기\n\n각 문항의 테스트를 작성하세요.")
    said = outputs(result)
    assert scores(result)["q1"] == scores(result)["q2"] == scores(result)["q4"] == 0.0 and scores(result)["q3"] == 3.0, said
    assert "0점" in said["q1"] and "scores 0" not in said["q1"], said["q1"]
    from anatomy.homework.attention_tests import mutation  # the run's own limit, its CPU time, named with the test
    assert said["q1"] == mutation.say("timeout", "ko", test="test_hangs (#1)", seconds=10, wall=40), said["q1"]
    assert "0점" in said["q2"] and "강사" in said["q2"] and "scores 0" not in said["q2"], said["q2"]
    assert "(실행과 실행 사이에 남는 상태)" in said["q4"] and "강사" in said["q4"], said["q4"]
    for question in ("q2", "q4"):  # English only inside code in backquotes
        assert not re.search(r"[A-Za-z]{3,}", re.sub(r"`[^`]*`", "", said[question])), said[question]


STRING_CHEATS = '''
import operator


def test_attrgetter(impl):
    bug = operator.attrgetter("_bug")(impl.MultiHeadAttention(8, 2))
    assert bug is None or bug.startswith("eq")


def test_closure_field(impl):
    assert "eq" in "{0.__closure__[0].cell_contents}".format(impl.causal_mask)


def test_never(impl):
    assert False, "never passes"


def test_against_hw(impl):
    assert torch.equal(hw.build(None).causal_mask(3), impl.causal_mask(3))


def test_adds_zero(impl):
    _, weights = impl.attention(torch.randn(1, 2, 4), torch.randn(1, 3, 4), torch.randn(1, 3, 4))
    assert torch.allclose(torch.add(weights.sum(-1), 0), torch.ones(1, 2))
'''


def test_strings_reading_private_names_and_hw_are_refused_honest_add_is_not(tmp_path):
    """review_19_second: attrgetter("_bug") and "{0.__closure__...}".format scored 15/15 unflagged (A); a test
    using `hw` got a cryptic unpack error (B); a lone torch.add(x, 0) was zeroed as "state kept" (A); the
    feedback named a test "function (#1)" (C). Each through the trusted grader."""
    lists = REFERENCE_LISTS | {"q1": "[test_attrgetter]", "q2": "[test_closure_field]", "q3": "[test_never]",
                               "q4": "[test_against_hw]", "q5": REFERENCE_LISTS["q5"][:-1] + ", test_adds_zero]"}
    result = graded(tmp_path, reference_code() + "\n" + STRING_CHEATS, lists)
    said, got = outputs(result), scores(result)
    assert got == {"q1": 0.0, "q2": 0.0, "q3": 0.0, "q4": 0.0, "q5": 3.0}, said
    assert "`._bug`" in said["q1"] and "`.format`" in said["q2"], said  # format fields reading attributes
    assert "test_never (#1)" in said["q3"] and "function (#1)" not in said["q3"], said["q3"]
    assert "`hw` (the homework's own module" in said["q4"] and "unpack" not in said["q4"], said["q4"]
    assert {flag.split(":")[0] for flag in result.flags} == {"q1", "q2", "q4"}, result.flags


def test_a_test_cannot_tell_which_implementation_runs_through_the_grader(tmp_path, unreviewed):
    """Third reading A and B, through the trusted grader: a test reading each step's code object through a
    dunder name built at run time (q1), the same swallowing its errors (q2), mro()[1] as a reference (q3), a
    module-level itertools.count (q4), torch.os (q5). Each scores 0 without the review (which refuses each
    first, flagged); they fail on the correct implementation or catch nothing, because the test's process holds
    proxies that are the same for every implementation, and each run starts from the same globals."""
    from test_attention_tests_homework import DETECTORS  # the same cheats, played without the review there
    code = DETECTORS + "\n\ndef test_reaches_os(impl):\n    assert torch.os.sep == \"/\"\n"
    lists = {"q1": "[test_knows_which_runs]", "q2": "[test_knows_which_runs_quietly]", "q3": "[test_mro_reference]",
             "q4": "[test_counts_runs]", "q5": "[test_reaches_os]"}
    result = graded(tmp_path, code, lists)
    said = outputs(result)
    assert scores(result) == dict.fromkeys(QUESTIONS, 0.0), said
    assert all("fails on the correct implementation" in said[q] for q in ("q1", "q3", "q4")), said
    assert "caught 0 of 4" in said["q2"], said["q2"]
    assert "caught 0 of" in said["q5"] and not result.flags, (said["q5"], result.flags)  # the review refuses torch.os


def test_state_a_test_keeps_is_back_at_its_start_each_run_through_the_grader(tmp_path):
    """Fourth reading A, through the trusted grader: state kept in a default argument (q1), a bound method
    used as the test (q2), an lru_cache helper (q3), a class attribute (q4), a module's list (q5) passed the
    review and caught the first (real) mutant for free ("caught 1 of 9"). Each trial now runs in a fork of the
    child: each test fails on every run, the correct one included, and nothing is flagged."""
    from test_attention_tests_homework import KEPT, KEPT_TESTS
    result = graded(tmp_path, KEPT, {q: f"[{name}]" for q, name in KEPT_TESTS.items()})
    said = outputs(result)
    assert scores(result) == dict.fromkeys(QUESTIONS, 0.0), said
    assert all("fails on the correct implementation" in line for line in said.values()), said
    assert "test_bound_method" in said["q2"], said["q2"]  # a bound method is named as a function is (sixth reading C1)
    assert result.flags == []


def test_a_test_using_the_practice_object_scores_zero_through_the_grader(tmp_path):
    """Fourth reading A: the check cell now fails `ref=impl` and the global `impl` (the notebook's practice
    object) as the grader does, which has no practice object: each question scores 0 there, unflagged. The
    feedback names the cause (the global practice object, read directly, through a helper or as a default)
    and the fix, not only "fails on the correct implementation", which sent students after their expected
    values; a test that fails for its own reason still gets that message (q4). Korean too (q5)."""
    from test_attention_tests_homework import PRACTISED, PRACTISED_MORE
    code = PRACTISED.replace("from anatomy.homework import attention_tests as hw\n", "") + PRACTISED_MORE
    result = graded(tmp_path, code, {"q1": "[test_default_reference]", "q2": "[test_global_reference]",
                                     "q3": "[test_helper_reference]", "q4": "[test_wrong_expectation]", "q5": "[]"})
    said = outputs(result)
    assert scores(result) == dict.fromkeys(QUESTIONS, 0.0), said
    for question, test in (("q1", "test_default_reference"), ("q2", "test_global_reference"), ("q3", "test_helper_reference")):
        assert f"your test {test} (#1) reads the global 'impl', the notebook's practice object" in said[question], said
        assert "fails on the correct implementation" in said[question] and "use only the test's parameter" in said[question]
    assert "fails on the correct implementation (AssertionError" in said["q4"] and "practice" not in said["q4"], said
    assert result.flags == []
    (tmp_path / "ko").mkdir()
    korean = graded(tmp_path / "ko", code, EMPTY | {"q3": "[test_helper_reference]"},
                    "# 숙제 3: 어텐션 테스트 작성하기\n\n각 문항의 테스트를 작성하세요.")
    assert "전역 변수 'impl'(노트북의 연습용 객체" in outputs(korean)["q3"] and "매개변수만 쓰세요" in outputs(korean)["q3"], outputs(korean)


HONEST_TOO = '''
def test_mha_word_time_in_message(impl):
    _, weights = impl.MultiHeadAttention(8, 2)(torch.randn(2, 3, 8))
    assert torch.allclose(weights.sum(-1), torch.ones(2, 2, 3)), "time"


def test_decoder_in_float64(impl):
    layer = impl.DecoderLayer(8, 2, 16).eval().to(torch.float64)
    x, m = torch.randn(1, 4, 8, dtype=torch.float64), torch.randn(1, 3, 8, dtype=torch.float64)
    y = layer(x, m)
    x2 = x.clone()
    x2[:, -1] += 1
    assert y.dtype == torch.float64 and torch.allclose(layer(x2, m)[:, :-1], y[:, :-1])
'''


def test_a_float64_layer_and_the_word_time_in_a_message_are_honest_through_the_grader(tmp_path):
    """Fourth reading B: `.to(torch.float64)` failed on the correct implementation ("cannot pass a dtype"), and
    "time" as an assert's message zeroed the question and flagged the student. With the reference suite, full
    marks and no flag."""
    lists = REFERENCE_LISTS | {"q3": REFERENCE_LISTS["q3"][:-1] + ", test_mha_word_time_in_message]",
                               "q4": REFERENCE_LISTS["q4"][:-1] + ", test_decoder_in_float64]"}
    result = graded(tmp_path, reference_code() + "\n" + HONEST_TOO, lists)
    assert scores(result) == dict.fromkeys(QUESTIONS, 3.0), outputs(result)
    assert result.flags == []


@pytest.fixture
def secret_order(monkeypatch):
    """The grader's secret order, drawn from a seeded generator here so that the test repeats itself."""
    import random
    import types
    from anatomy.homework.attention_tests import mutation
    monkeypatch.setattr(mutation, "random", types.SimpleNamespace(Random=lambda: random.Random(0)))  # q1: a real one first


PIDS = '''
import _thread

SEEN = {seen}


def test_shows_its_pid(impl):
    assert False, f"pid {{_thread.get_native_id()}}"


def test_knows_its_run_by_pid(impl):
    assert _thread.get_native_id() not in SEEN
'''


def test_position_dependent_tests_earn_nothing_through_the_grader(tmp_path, secret_order, unreviewed):
    """Fifth reading A: a test failing on the fork's pid of a trial, learnt from a first submission (in its pid
    namespace the child's forks get the same pids each time), caught the first (real) mutant when it always
    ran first; so did a counter in a file or an mmap (those are now refused: test_outputs_kept_in_a_file_*,
    tests/test_grading_seal.py). The order is now secret and a mutant counts only when both of its runs fail:
    a test failing on the pids the first submission's feedback showed, and on the pids just after them (the
    trials that followed), scores 0, unflagged, and the reference suite beside it keeps its marks."""
    (tmp_path / "first").mkdir()
    said = outputs(graded(tmp_path / "first", PIDS.format(seen="()"), EMPTY | {"q1": "[test_shows_its_pid]"}))
    shown = int(re.search(r"pid (\d+)", said["q1"]).group(1))  # the pid of the first run the feedback shows
    (tmp_path / "second").mkdir()
    lists = EMPTY | {"q1": "[test_knows_its_run_by_pid]", "q5": REFERENCE_LISTS["q5"]}
    result = graded(tmp_path / "second", reference_code() + PIDS.format(seen=tuple(range(shown - 3, shown + 3))), lists)
    assert scores(result) == {"q1": 0.0, "q2": 0.0, "q3": 0.0, "q4": 0.0, "q5": 3.0}, outputs(result)
    assert ("caught 0 of 9" in outputs(result)["q1"] or "fails on the correct" in outputs(result)["q1"]) \
        and result.flags == [], outputs(result)


SPAWNS = '''
import copy
import posix
import subprocess
import _posixsubprocess
import _thread


def spawn(fork_exec):
    r, w = posix.pipe()
    pid = fork_exec([b"/bin/true"], [b"/bin/true"], True, (w,), None, None, -1, -1, -1, -1, -1, -1, r, w, True, False,
                    -1, None, None, None, -1, None, False)
    posix.waitpid(pid, 0)


def test_runs_true(impl):
    subprocess.run(["/bin/true"])


def test_fork_exec(impl):
    spawn(_posixsubprocess.fork_exec)


def test_starts_a_thread(impl):
    _thread.start_new_thread(len, ((),))


def test_deepcopy(impl):
    copy.deepcopy(impl.MultiHeadAttention(8, 2))
'''


def test_starting_a_process_or_copying_scores_zero_with_a_clear_message_through_the_grader(tmp_path, unreviewed):
    """Fifth reading A and B, played without the review (which refuses q1-q3 first): subprocess.run (q1: the child's
    refusal), _posixsubprocess.fork_exec, which raises
    no audit event (q2: the child's refusal), a thread (q3: RLIMIT_NPROC 0 in the trial's fork stops any
    process or thread, fork_exec from a fresh copy of its module too), copy.deepcopy of an object under test
    (q4: words naming load_state_dict); q5 keeps its marks."""
    result = graded(tmp_path, reference_code() + SPAWNS, {"q1": "[test_runs_true]", "q2": "[test_fork_exec]",
                                                         "q3": "[test_starts_a_thread]", "q4": "[test_deepcopy]",
                                                         "q5": REFERENCE_LISTS["q5"]})
    said = outputs(result)
    assert scores(result) == {"q1": 0.0, "q2": 0.0, "q3": 0.0, "q4": 0.0, "q5": 3.0}, said
    assert "subprocess" in said["q1"] and "starting a process is switched off in the grader" in said["q2"], said
    assert "can't start new thread" in said["q3"] and "load_state_dict" in said["q4"], said
    assert any("subprocess" in flag for flag in result.flags), result.flags  # cell 1 (the review would zero q1 first)


KEEPS = '''
import io
from collections import Counter


def remembered(tag, seen):
    """The outputs seen before under `tag`, read from a file before this run's is added to it."""
    with io.open("seen.txt", "a+") as kept:
        kept.seek(0)
        before = [line.rstrip("\\n").split("|", 1)[1] for line in kept if line.startswith(tag + "|")]
        kept.write(tag + "|" + seen + "\\n")
    return before


def majority(tag, seen):
    """Fail once one output has been seen 3 times (a mutant runs twice) and this one differs: the correct
    code's output learnt by majority, with no expected value in the source."""
    top = Counter(remembered(tag, seen)).most_common(1)
    assert not top or top[0][1] < 3 or seen == top[0][0], "differs from the output seen most often"


def test_learns_attention(impl):
    g = torch.Generator().manual_seed(7)
    q, k, v = torch.randn(2, 3, 8, generator=g), torch.randn(2, 5, 8, generator=g), torch.randn(2, 5, 6, generator=g)
    out, weights = impl.attention(q, k, v, torch.rand(2, 3, 5, generator=g) > 0.3)
    majority("q1", f"{out.sum().item():.4f},{weights.sum().item():.4f},{(out * out).sum().item():.4f}")


def test_learns_mask(impl):
    majority("q2", str(impl.causal_mask(3, 5).int().tolist()) + str(impl.causal_mask(4).int().tolist()))


def test_maps_a_file(impl):
    kept = torch.from_file("kept.bin", shared=True, size=4, dtype=torch.uint8)  # native code: no audit event
    kept += impl.causal_mask(2).flatten().to(torch.uint8)
'''


def test_outputs_kept_in_a_file_earn_nothing_through_the_grader(tmp_path, unreviewed):
    """Sixth reading A1: a test that appended what it saw to a file learnt the correct code's outputs by
    majority over the trials and earned 2.3-2.7 of 3 points (no expected value in its source, nothing flagged).
    Homework 3's child is now sealed (anatomy_grading/seal.py): writing the file fails on the correct
    implementation (q1, q2: io.open, refused by the tripwire; q3: torch.from_file, native code, refused by the
    kernel where Landlock holds), which scores 0 and says why; q4 and q5 keep their marks."""
    result = graded(tmp_path, reference_code() + KEEPS, {"q1": "[test_learns_attention]", "q2": "[test_learns_mask]",
                                                         "q3": "[test_maps_a_file]", "q4": REFERENCE_LISTS["q4"],
                                                         "q5": REFERENCE_LISTS["q5"]})
    said = outputs(result)
    assert scores(result) == {"q1": 0.0, "q2": 0.0, "q3": 0.0, "q4": 3.0, "q5": 3.0}, said
    assert all("writes a file (RuntimeError: writing files is switched off in the grader)" in said[q]
               for q in ("q1", "q2")), said
    assert result.flags == [], result.flags
    landlock = any(line.startswith("sealed: no file writes") for line in result.held)
    assert landlock or "sealed: no Landlock" in "\n".join(result.held), result.held
    assert "Permission denied" in said["q3"] or not landlock, said["q3"]


SHARED = '''
import posix
from collections import Counter

PIPE = posix.pipe()  # made once, in the child, before any trial: every trial's fork inherits both ends
try:
    MEMORY = posix.memfd_create("seen")
except RuntimeError:  # the sealed child refuses memfds (their inode numbers would carry a state)
    MEMORY = None
posix.set_blocking(PIPE[0], False)
torch.set_num_threads(2)  # honest: the grader keeps torch at one thread (its pool's threads would hold the runs' place)
torch.ones(300, 300) @ torch.ones(300, 300)
from tqdm import tqdm  # honest too: a bar's monitor thread would outlive it; the grader has it off
for _ in tqdm(range(3)):
    pass


def through_pipe(seen):
    try:
        before = posix.read(PIPE[0], 1 << 16).decode().split(";")
    except BlockingIOError:
        before = []
    posix.write(PIPE[1], ";".join([b for b in before if b] + [seen]).encode())
    top = Counter(b for b in before if b).most_common(1)
    assert not top or top[0][1] < 3 or seen == top[0][0], "differs from the output seen most often"


def test_learns_attention_through_a_pipe(impl):
    g = torch.Generator().manual_seed(7)
    q, k, v = torch.randn(2, 3, 8, generator=g), torch.randn(2, 5, 8, generator=g), torch.randn(2, 5, 6, generator=g)
    out, weights = impl.attention(q, k, v)
    through_pipe(f"{out.sum().item():.4f},{(out * out).sum().item():.4f}")


def test_counts_in_memory(impl):
    memory = posix.memfd_create("seen") if MEMORY is None else MEMORY
    posix.lseek(memory, 0, 0)
    count = int(posix.read(memory, 16) or b"0")
    posix.lseek(memory, 0, 0)
    posix.write(memory, str(count + 1).encode())
    assert impl.causal_mask(3).shape == (3, 3)
'''


def test_a_pipe_or_memfd_made_before_the_trials_carries_nothing_through_the_grader(tmp_path, unreviewed):
    """The sealed child's other shared state: a pipe (q1) and a memfd (q2) made by the test's module in the child,
    which every trial's fork would inherit. Each fork now closes every descriptor the child did not open for it
    (trial.close_inherited), so using the pipe fails on the correct implementation, and the sealed child makes
    no memfd at all (tenth reading A2): 0, nothing flagged. The cell
    also asks torch for 2 threads and multiplies (ninth reading B1: the child died of it), and shows a tqdm bar,
    whose monitor thread outlived it (tenth reading A3: every question 0): the grader keeps torch at one thread
    (and says so in the log) and tqdm without its monitor, and q3-q5 keep their marks."""
    result = graded(tmp_path, reference_code() + SHARED, {"q1": "[test_learns_attention_through_a_pipe]",
                                                          "q2": "[test_counts_in_memory]", "q3": REFERENCE_LISTS["q3"],
                                                          "q4": REFERENCE_LISTS["q4"], "q5": REFERENCE_LISTS["q5"]})
    said = outputs(result)
    assert scores(result) == {"q1": 0.0, "q2": 0.0, "q3": 3.0, "q4": 3.0, "q5": 3.0}, said
    assert "fails on the correct implementation (OSError: [Errno 9] Bad file descriptor)" in said["q1"], said
    assert "it leaves a mark in the kernel that a later run could read" in said["q2"], said  # a memfd, refused
    assert result.flags == [], result.flags
    assert any("torch.set_num_threads(2) ignored" in line for line in result.log), result.log[-3:]


ROUTES = '''
import posix
import resource
from collections import Counter

HIGH = 250  # a pipe above the soft limit the cell then sets (a memfd before the sealed child refused them)
posix.dup2(posix.pipe()[1], HIGH)
resource.setrlimit(resource.RLIMIT_NOFILE, (64, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
posix.dup2(posix.pipe()[1], 2)  # the child's stderr replaced by a pipe


def majority(before, seen):
    top = Counter(before).most_common(1)
    assert not top or top[0][1] < 3 or seen == top[0][0], "differs from the output seen most often"


def kept_in(fd, seen):
    """What earlier trials wrote to descriptor `fd` (read back with pread), then this one's added."""
    size = posix.fstat(fd).st_size
    before = posix.pread(fd, size, 0).decode().split(";") if size else []
    posix.pwrite(fd, (seen + ";").encode(), size)
    return [b for b in before if b]


def mask_seen(impl):
    return str(impl.causal_mask(3, 5).int().tolist()) + str(impl.causal_mask(4).int().tolist())


def test_reads_back_its_stdout(impl):
    size = posix.fstat(1).st_size
    before = posix.pread(1, size, 0).decode().split() if size else []
    print(mask_seen(impl).replace(" ", ""), flush=True)
    majority(before, mask_seen(impl).replace(" ", ""))


def test_keeps_in_stderr(impl):
    majority(kept_in(2, mask_seen(impl)), mask_seen(impl))


def test_keeps_above_the_limit(impl):
    majority(kept_in(HIGH, mask_seen(impl)), mask_seen(impl))


def test_signals_the_child(impl):
    posix.kill(posix.getppid(), 40)
    assert impl.causal_mask(3).shape == (3, 3)


def test_lowers_the_childs_priority(impl):
    posix.setpriority(posix.PRIO_PROCESS, posix.getppid(), 1)
    assert impl.causal_mask(3).shape == (3, 3)
'''


def test_descriptors_signals_and_the_childs_state_carry_nothing_through_the_grader(tmp_path, unreviewed):
    """Seventh reading A1, through the trusted grader: every trial shared the child's stdout (the grader's log,
    read back with pread: q1), its stderr replaced by a memfd at cell level (q2), a memfd above the soft limit
    the cell set (q3), and could leave a signal pending in the child (q4) or change its priority (q5); the first
    three learnt the correct outputs by majority (2.25-3 of 3 points). The sealed child now refuses memfds, so
    the cell uses pipes. A trial's stdout and stderr are a pipe of its own (the child copies it to the log
    after the trial), it closes every other descriptor it inherited, it cannot signal the child (Landlock's
    scope), and one that changed the child ends it: each scores 0, nothing flagged."""
    result = graded(tmp_path, ROUTES, {"q1": "[test_reads_back_its_stdout]", "q2": "[test_keeps_in_stderr]",
                                       "q3": "[test_keeps_above_the_limit]", "q4": "[test_signals_the_child]",
                                       "q5": "[test_lowers_the_childs_priority]"})
    said = outputs(result)
    assert scores(result) == dict.fromkeys(QUESTIONS, 0.0), said
    assert "caught 0 of" in said["q1"], said["q1"]  # its stdout is a pipe of its own, empty at its start
    assert "Illegal seek" in said["q2"] and "Bad file descriptor" in said["q3"], said  # that pipe; a closed one
    assert "not permitted" in said["q4"] or "changed the grader's process" in said["q4"], said["q4"]
    assert "changed the grader's process itself" in said["q5"], said["q5"]
    assert result.flags == [], result.flags


def test_a_run_cut_short_by_the_question_budget_names_the_budget_through_the_grader(tmp_path, monkeypatch, unreviewed):
    """Seventh reading A3: in the trusted grader a run cut short by what was left of the question's budget
    was worded as the run's own limit ("did not finish within 1 s"). With a question whose clock (2 x 7.5 s) is
    shorter than a run's (40 s), a test that waits hears of the question's clock; the others keep their marks."""
    from anatomy.homework.attention_tests import mutation
    monkeypatch.setattr(mutation, "QUESTION_SECONDS", 7.5)
    code = reference_code() + "\n\nimport select\n\n\ndef test_waits(impl):\n    select.select([], [], [], 100)\n"
    result = graded(tmp_path, code, REFERENCE_LISTS | {"q1": "[test_waits]"})
    assert scores(result) == {"q1": 0.0, "q2": 3.0, "q3": 3.0, "q4": 3.0, "q5": 3.0}, outputs(result)
    assert outputs(result)["q1"] == mutation.say("question_clock", "en", wall=15), outputs(result)["q1"]


def test_a_thread_of_the_cell_leaves_no_room_for_a_run_through_the_grader(tmp_path):
    """Eighth reading A1: a thread the answer cell started ran in the child beside the trials, read the log and
    kept what it read in the memory every fork copies (2-2.25 of 3 points). The sealed child's RLIMIT_NPROC
    leaves room for one trial's fork and no thread beside it: with the cell's thread running, no run can
    start, so the reference suite itself scores 0 and says why, naming the thread (ninth reading B1: a cell must
    leave no thread running); flagged only for the module the cell imports."""
    code = reference_code() + "\n\nimport threading\n"
    code += "_LOCK = threading.Lock()\n_LOCK.acquire()\nthreading.Thread(target=_LOCK.acquire, name='keeper').start()\n"
    result = graded(tmp_path, code, REFERENCE_LISTS)
    said = outputs(result)
    assert scores(result) == dict.fromkeys(QUESTIONS, 0.0), said
    left = "a thread your notebook started is still running in the grader (keeper), and a cell must leave none running"
    assert all(left in line for line in said.values()), said
    assert all("threading" in flag for flag in result.flags), result.flags  # the static scan names the module


COUNTERS = (ROOT / "tests" / "counter_probe.py").read_text()


def test_the_logs_size_and_the_childs_fault_count_carry_nothing_through_the_grader(tmp_path, unreviewed):
    """Ninth reading A1, through the trusted grader: every fork appended its output to the one log, whose size
    it could read (fstat), and each fork the child waited for added its page faults to the child's cminflt
    (/proc/1/stat), which the next fork could read; padding either to a residue carried an exact state, and
    counting outputs until one was seen three times (the correct one's) earned 2.0 (q1, the log) and 1.875
    (q2, the faults) of 3. Now a fork prints into a pipe of its own, and the kernel reaps each fork without
    adding its faults to the child's: each state stays at its start, no output is ever seen three times, and
    both tests catch nothing. Nothing flagged."""
    result = graded(tmp_path, COUNTERS, EMPTY | {"q1": "[test_attention_via_log]", "q2": "[test_mask_via_faults]"})
    said = outputs(result)
    assert scores(result) == dict.fromkeys(QUESTIONS, 0.0), said
    assert "caught 0 of" in said["q1"] and "caught 0 of" in said["q2"], said
    assert result.flags == [], result.flags


CHANNEL_PROBES = '''
import fcntl
import io
import json
import posix
import struct

AT_CELL = {int(n) for n in posix.listdir("/proc/self/fd")}  # the child's: its channels to the grader among them


def inherited_writer():
    """In the fork: a pipe it can write to that the child held before the trials (the channel it asks over)."""
    for n in sorted(int(name) for name in posix.listdir("/proc/self/fd")):
        try:
            flags = int(io.open(f"/proc/self/fdinfo/{n}").read().split("flags:")[1].split()[0], 8)
        except OSError:  # the listing's own descriptor
            continue
        if n > 2 and n in AT_CELL and flags & 3 == 1:
            return n
    raise AssertionError("no channel")


def frame(message):
    body = json.dumps(message).encode()
    return b"AGW1" + struct.pack(">QQ", len(body), 0) + body


def test_leaves_an_answer_behind(impl):
    assert impl.causal_mask(3).shape == (3, 3)
    posix.write(inherited_writer(), frame({"ask": {"op": "causal_mask", "args": [3]}}))  # its answer stays unread


def test_replies_for_the_child(impl):
    assert impl.causal_mask(3).shape == (3, 3)
    posix.write(inherited_writer(), frame({"value": None, "refused": []}))  # "this run passed"


def test_marks_the_channel(impl):
    """A signal number set on the trials' channel outlives the fork (the tenth reading: 585 states with the pipe's size)."""
    assert impl.causal_mask(3).shape == (3, 3)
    fcntl.fcntl(inherited_writer(), fcntl.F_SETSIG, 7)


def test_makes_memfds(impl):
    """Each memfd moves the next one's inode number by one (the tenth reading: 24 of 24 exact)."""
    assert impl.causal_mask(3).shape == (3, 3)
    posix.memfd_create("mark")


def test_reads_the_page_cache(impl):
    """Whether a page of a large file is cached (a bit an earlier run could have set by reading it)."""
    assert impl.causal_mask(3).shape == (3, 3)
    fd = posix.open("/etc/passwd", posix.O_RDONLY)
    posix.preadv(fd, [bytearray(4096)], 0, posix.RWF_NOWAIT)
'''


def test_a_fork_can_neither_leave_an_answer_for_the_next_nor_reply_for_the_child_through_the_grader(tmp_path, unreviewed):
    """Routes the ninth reading left open: every fork held the child's own channel to the grader, so one could
    write a question and leave its answer in the pipe for the next fork to read (a channel from trial to
    trial), or write a reply in the child's name. Trials now ask over a channel of their own (connection.py),
    and a reply that finds anything left in it, or a reply on it, ends the child: 0, in words. And the page
    cache, every process's: preadv with RWF_NOWAIT tells whether a page is cached, a bit an earlier run could
    set by reading it (q3); the sealed child's preadv takes no flags: 0, in words. The tenth reading: the
    channel's open-file state (a signal number, the pipe's size) outlived each fork (q4: 1.667-2.25 of 3 in its
    probe), now part of the child's state a trial may not change; memfd inode numbers move with each memfd made
    (q5), now refused: 0, in words."""
    result = graded(tmp_path, CHANNEL_PROBES, EMPTY | {"q1": "[test_leaves_an_answer_behind]",
                                                       "q2": "[test_replies_for_the_child]",
                                                       "q3": "[test_reads_the_page_cache]",
                                                       "q4": "[test_marks_the_channel]", "q5": "[test_makes_memfds]"})
    said = outputs(result)
    assert scores(result) == dict.fromkeys(QUESTIONS, 0.0), said
    assert all("left a message in its channel to the grader" in said[q] for q in ("q1", "q2")), said
    assert all("it leaves a mark in the kernel that a later run could read" in said[q] for q in ("q3", "q5")), said
    assert "changed the grader's process itself" in said["q4"], said["q4"]


def test_every_probe_of_the_runs_is_refused_by_the_review_first():
    """The probes the tests above play without the review (`unreviewed`): with it, the grader's static review
    (its allowlist) zeroes each one before anything runs, and flags it."""
    from test_attention_tests_homework import DETECTORS
    from anatomy.homework import messages
    from anatomy.homework.attention_tests import review
    from anatomy_grading.static import review as static_review
    rules = {"q1": {"symbols": ["q1_tests"], "forbidden": [], "names": True, "flag": True, "zero": "{what} (cell {cell})",
                    "review": "anatomy.homework.attention_tests.review", "why": "why_rules",
                    "seen": {key: messages.CATALOGUE[key]["en"] for key in review.KEYS}}}
    probes = {"DETECTORS": DETECTORS + "\n\ndef test_reaches_os(impl):\n    assert torch.os.sep == '/'\n", "WAKES": WAKES,
              "PIDS": PIDS.format(seen="()"), "SPAWNS": SPAWNS, "KEEPS": KEEPS, "SHARED": SHARED, "ROUTES": ROUTES,
              "COUNTERS": COUNTERS, "CHANNEL_PROBES": CHANNEL_PROBES,
              "waits": "import select\n\n\ndef test_waits(impl):\n    select.select([], [], [], 100)\n"}
    allowed = {"test_deepcopy",  # copy is allowed (the objects under test refuse to be copied, with words)
               "test_counts_runs"}  # itertools.count in a global: allowed, and back at its start in every run's fork
    for where, code in probes.items():
        names = re.findall(r"^def (test_\w+)\(impl\)", code, re.M)
        assert names, where
        for name in names:
            zero, flags = static_review([IMPORTS, code, f"q1_tests = [{name}]"], [IMPORTS], rules)
            if name in allowed:
                assert "q1" not in zero, (where, name, zero)
                continue
            assert "q1" in zero and any(flag.startswith("q1:") for flag in flags), (where, name, zero)
