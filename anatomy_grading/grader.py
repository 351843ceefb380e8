"""One submission graded: static review, then each group of questions in a fresh child, case by case.

For a case, the parent looks up the homework's check (anatomy.homework.<hw>.check_x), replaces each
answer name by a proxy of the child's object and runs the check's `.verdict(...)` here; the score is
the case's share of its question's points when the verdict is None. A group's child runs every
public case of its questions before it receives any hidden input, and each group has a fresh child,
so no public feedback (what the student's code returned or raised) can carry anything of a hidden case (report.py).
A child that times out or dies costs the question it was answering (its other cases score 0 with the same
message); the next question gets a fresh child. A cell that hangs is left out of the next child. The whole
submission has a wall-clock limit (TOTAL) and the static review one of its own (review.py). Anything that goes
wrong in the grader itself scores 0 and flags the submission, never a traceback.
"""
from __future__ import annotations

import dataclasses
import importlib
import json
import re
import time
from pathlib import Path

from anatomy.homework import messages
from anatomy.homework.attention_tests import clock, fork_state, mutation
from anatomy.homework.feedback import Feedback
from anatomy_grading import plan as plans
from anatomy_grading import review, static
from anatomy_grading.connection import ChildFailed
from anatomy_grading.runner import CELL_TIMEOUT, Result, Runner

__all__ = ["CELL_TIMEOUT", "Result", "Runner", "grade", "hidden_paths", "ungraded"]
TOTAL = {"08_homework_cross_attention": 300.0, "10_homework_sentiment": 900.0,  # seconds for one whole submission;
         "19_homework_attention_tests": 10 * clock.QUESTION_FACTOR * mutation.QUESTION_SECONDS + 180.0}  # 10 cases' clocks, 180 s


def hidden_paths(extra: list[Path]) -> list[Path]:
    import anatomy.corpora.sentiment_data
    import anatomy.homework
    import anatomy_grading
    repo = Path(anatomy.__file__).resolve().parent.parent
    return [Path(anatomy_grading.__file__).parent, Path(anatomy.homework.__file__).parent,
            anatomy.corpora.sentiment_data.data_dir(), repo / "instructor", repo / "build", repo / "tests", *extra]


def language_of(notebook: Path) -> str:
    """"ko" for a submission made from the Korean edition, else "en" (also for one that is no notebook)."""
    try:
        if notebook.stat().st_size <= static.MAX_BYTES:
            return messages.language_of(json.loads(notebook.read_bytes()))
    except (OSError, ValueError, TypeError, AttributeError, RecursionError):
        pass
    return "en"


def tests_of(plan: dict) -> list[dict]:
    """One entry per case of the plan, in order, named as otter names them ("q1 - public", "q1 - hidden 1")."""
    tests = []
    for question, spec in plan["questions"].items():
        hidden = 0
        for case in spec["cases"]:
            hidden += case["hidden"]
            tests.append({"question": question, "name": f"{question} - " + (f"hidden {hidden}" if case["hidden"] else "public"),
                          "max_score": spec["points"] / len(spec["cases"]), "score": 0.0, "hidden": case["hidden"],
                          "mistake": None, "case": case})
    return tests


def ungraded(plan_path: Path, why: str, flag: str | None = None, notebook: Path | None = None, **fields: object) -> Result:
    """Every case at 0 with `why` (a catalogue key, its `fields`), worded in the language of `notebook`:
    a submission the grader could not grade at all (and the flag saying so, for the instructor)."""
    plan, _ = plans.load(plan_path)
    language = "en" if notebook is None else language_of(Path(notebook))
    tests = [{k: v for k, v in t.items() if k != "case"} | {"output": messages.say(why, language, **fields)}
             for t in tests_of(plan)]
    return Result(tests=tests, flags=[flag] if flag else [], language=language)


def grade(notebook: Path, plan_path: Path, slot: int = 0, threads: int = 1, hide: list[Path] = (),
          call_timeout: float | None = None, cell_timeout: float | None = None, total: float | None = None) -> Result:
    start, result = time.perf_counter(), Result()
    plan, homework = plans.load(plan_path)
    total = total or TOTAL.get(plan["assignment"], 300.0)
    deadline = time.monotonic() + total
    language = result.language = language_of(Path(notebook))  # every message below is worded in it
    try:
        cells, zero, result.flags = review.reviewed(Path(notebook), plan["template"],
                                                    plans.question_rules(plan, homework, language))
    except static.NotebookError as error:
        why = messages.say("every_question_zero", language, error=messages.say(error.key, language, **error.fields))
        cells, zero = [], dict.fromkeys(plan["questions"], why)
    checks = importlib.import_module(homework.module)
    hidden = hidden_paths([Path(plan_path).parent, Path(notebook).resolve().parent, *hide])
    tests = tests_of(plan)
    for group in homework.groups:  # in each child, every public case before any hidden input reaches it
        group = group if call_timeout is None else dataclasses.replace(group, call_timeout=call_timeout)
        mine = sorted((t for t in tests if t["question"] in group.questions), key=lambda t: t["hidden"])
        runner = Runner(group, cells, result, slot, threads, hidden, cell_timeout or CELL_TIMEOUT, deadline, total)
        try:
            for test in mine:
                grade_case(test, zero, runner, checks, result, language, homework.localized)
        finally:
            runner.close()
    result.tests = [{k: v for k, v in t.items() if k != "case"} for t in tests]
    result.log += ["hidden cases not passed, in full (for the instructor: the student sees 'failed' and a mistake's name):"]
    result.log += [f"{t['name']}: {t['output']}" for t in tests if t["hidden"] and t["score"] < t["max_score"]]
    result.seconds = time.perf_counter() - start
    return result


def child_failed(reason: str, language: str = "en") -> str:
    """Why a failed child costs the question, in the submission's language (reasons: connection, runner, checks.py)."""
    if found := re.fullmatch(r"did not finish within (\d+) s", reason):
        return messages.say("child_timeout", language, seconds=int(found[1]))
    if found := re.fullmatch(r"ran past the grader's limit of (\d+) s for one notebook", reason):
        return messages.say("child_notebook_limit", language, seconds=int(found[1]))
    if reason == "tampered" or reason == f"stopped (exit code {fork_state.TAMPERED})":  # a trial's fork left a question or an
        return messages.say("child_tampered", language)  # answer in its channel (connection.py), or changed the child
    if found := re.fullmatch(r"stopped \(exit code (-?\d+)\)", reason):
        return messages.say("child_exit", language, code=int(found[1]))
    if found := re.fullmatch(r"ran past the question's clock of ([\d.]+) s", reason):  # homework 3 (checks.runner)
        return messages.say("question_clock", language, wall=float(found[1]))
    if found := re.fullmatch(r"a run of (.+) ran past its limit of ([\d.]+) s", reason):  # homework 3 (checks.runner)
        return messages.say("timeout", language, test=found[1], seconds=float(found[2]), wall=clock.WALL_FACTOR * float(found[2]))
    if found := re.fullmatch(r"its relay failed \((.*)\)", reason):  # homework 3: the implementation's process
        return messages.say("implementation_failed", language, why=found[1])
    if found := re.fullmatch(r"a run of (.+) ended without its result", reason):  # homework 3 (checks.runner)
        return messages.say("run_lost", language, test=found[1])
    if found := re.fullmatch(r"sent a malformed reply \((\w+)\)", reason):
        return messages.say("child_malformed", language, error=found[1])
    return messages.say("child_stopped" if reason == "stopped" else "child_failed", language, why=reason)


def grade_case(test: dict, zero: dict[str, str], runner: Runner, checks, result: Result, language: str = "en",
               localized: bool = False) -> None:
    """One case: its score and output in `test`, worded in `language`; a child that fails costs the rest
    of its question (`zero`). A verdict with a `share` (homework 3's PartialCredit) earns that share of
    the case's points. A `localized` homework's checks take the language themselves."""
    question, case = test["question"], test["case"]
    extra = {"language": language} if localized else {}
    if question in zero:
        test["output"] = zero[question]
        return
    try:
        session = runner.ready()
        args = [session.answer(a["answer"]) if isinstance(a, dict) else a for a in case["args"]]
        verdict = getattr(checks, case["check"]).verdict(*args, **case["kwargs"], **extra)
    except ChildFailed as failure:
        zero[question] = test["output"] = child_failed(str(failure), language)
        runner.close()
        return
    except NameError as error:
        verdict = Feedback("not_implemented", error=str(error))
    except Exception as error:  # the grader's own failure: 0 for now, and a person looks at it
        result.flags.append(f"{test['name']}: the grader failed ({type(error).__name__}: {str(error)[:200]})")
        test["output"] = messages.say("grader_failed_case", language)
        return
    share = 1.0 if verdict is None else float(getattr(verdict, "share", 0.0))
    test["score"] = test["max_score"] * share
    name = None if verdict is None else getattr(verdict, "name", None)
    test["output"] = messages.say("passed", language) if verdict is None else verdict.text(language)
    test["mistake"] = None if name is None else messages.text_of(name, language)
