"""Grading a student's tests by the bugs they catch (homework 3, notebook 19_homework_attention_tests).

Each question's tests (functions `test_...(impl)`) run against the correct implementation and
against each of the question's mutants and every equivalent mutant (mutants.py: the list is public;
which one a run gets is what a test cannot learn). A mutant is
caught when one test fails (raises) on it. The question's share: caught / its mutants, minus a quarter
for each equivalent mutant a test fails; 0 when a test fails on the correct implementation, runs past
its time limit, the question has no tests or too many, or its source does something review.py
forbids (then it is flagged too; the trusted grader applies review.py through plan.SUITE). Every
test run starts from the case's torch seed (the same for every implementation), so it draws the same
inputs and weights whichever implementation it gets. The feedback names categories, not mutants.
"""
from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field
from typing import Callable

from anatomy.homework.messages import say
from anatomy.homework.attention_tests.mutants import MUTANTS, Mutant
from anatomy.homework.attention_tests.review import forbidden
from anatomy.homework.attention_tests import server_link, stand_in, state, trial

TEST_SECONDS, QUESTION_SECONDS, MAX_TESTS, EQUIVALENT_COST = 10.0, 40.0, 25, 0.25  # wall-clock seconds: a loaded 2-core machine must not time out an honest test


@dataclass
class Graded:
    share: float = 0.0  # of the question's points, 0..1
    lines: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    survivors: list[str] = field(default_factory=list)  # mutant names, for the instructor's log only


def in_process(tests: dict[str, Callable], test_seconds: float = TEST_SECONDS,
               seed: int = 0) -> Callable[[str, str | None, float], str | None]:
    """A `run(test name, bug, seconds)` for grade_question that runs the tests here (the notebook's
    formative check; the trusted grader runs them in its child instead), each run in a fork of this process
    (trial.py), and each implementation in the server's process, every run from the same state (state.py).
    StateKept when that cannot be. A fork killed mid-request leaves the server's pipe in between frames:
    it is closed, and the next build starts a fresh one."""
    server, start = server_link.shared(), state.snapshot(list(tests.values()))

    def run(name: str, bug: str | None, seconds: float) -> str | None:
        server.build(bug, seed)
        return trial.isolated(lambda: stand_in.run_test(tests[name], server.ask, start, seed),
                              min(seconds, test_seconds), server.close)
    return run


def grade_question(question: str, names: list[str], run: Callable[[str, str | None, float], str | None],
                   language: str = "en", source: str = "", test_seconds: float = TEST_SECONDS,
                   question_seconds: float = QUESTION_SECONDS, mutants: tuple[Mutant, ...] = MUTANTS,
                   rng: random.Random | None = None, stand_ins: dict[str, str] | None = None) -> Graded:
    """One question: its tests' `names`, `run(name, bug or None, seconds)` -> None (passed) or why it
    failed ("timeout"), `source` the cells that define them (reviewed first), `stand_ins` {a test's name: the
    global practice object it reads} (state.stand_ins_read), named if that test fails the correct one. A real
    mutant, drawn at random, runs first, then every other trial in random order with the correct implementation
    among them, and the correct one twice more at the end: no test can tell it by the order (a test that
    counts its calls, or records its first outputs to compare later ones with, fails on a correct run)."""
    graded = Graded()
    if banned := forbidden(source):
        (key, fields), why = banned[0]  # what review.py refused: a catalogue key and its fields
        if why == "import_error":
            graded.lines.append(say("import_error", language, **fields))
            return graded
        graded.lines.append(say("forbidden", language, what=say(key, language, **fields), why=say(why, language)))
        graded.flags.append(f"{question}: {say(key, 'en', **fields)} ({why})")  # the instructor's log, in English
        return graded
    if not names:
        graded.lines.append(say("no_tests", language))
        return graded
    if len(names) > MAX_TESTS:
        graded.lines.append(say("too_many", language, count=len(names), limit=MAX_TESTS))
        return graded
    rng, stand_ins = rng or random.Random(), stand_ins or {}
    own = [m for m in mutants if m.question == question]
    trials: list[Mutant | None] = own + [m for m in mutants if m.equivalent] + [None]  # None: the correct one
    rng.shuffle(trials)  # no order to learn from
    real = [k for k, m in enumerate(trials) if m is not None and not m.equivalent]
    if real:  # a real bug runs first: a test that records its first outputs and compares later ones fails
        trials.insert(0, trials.pop(rng.choice(real)))  # on the correct one (review.py also refuses such state)
    trials = trials + [None, None] if real else [None] + trials + [None]
    deadline = time.monotonic() + question_seconds
    caught, failed_equivalent = set(), []
    for mutant in trials:
        for name in names:
            left = deadline - time.monotonic()
            if left <= 0:
                graded.lines = [say("question_budget", language, seconds=question_seconds)]
                return graded
            why = run(name, mutant and mutant.name, min(test_seconds, left))
            if why == "timeout":
                graded.lines = [say("timeout", language, test=name, seconds=test_seconds)]
                return graded
            if why is not None and mutant is None:  # reading the practice object, not a wrong expectation: say so
                graded.lines = [say("practice_read", language, test=name, name=repr(stand_ins[name])) if name in stand_ins
                                else say("correct_fails", language, test=name, why=why)]
                return graded
            if why is not None:
                if mutant.equivalent:
                    failed_equivalent.append(name)
                else:
                    caught.add(mutant.name)
                break
    graded.survivors = [m.name for m in own if m.name not in caught]
    graded.share = max(0.0, len(caught) / len(own) - EQUIVALENT_COST * len(failed_equivalent)) if own else 0.0
    graded.lines.append(say("score", language, caught=len(caught), total=len(own)))
    if graded.survivors:
        categories = sorted({say(m.category, language) for m in own if m.name in graded.survivors})
        graded.lines.append(say("survivors", language, categories="; ".join(categories)))
    if failed_equivalent:
        graded.lines.append(say("equivalent_failed", language, count=len(failed_equivalent),
                                tests=", ".join(sorted(set(failed_equivalent)))))
    return graded


def points(share: float, question_points: float) -> float:
    return math.floor(share * question_points * 100 + 1e-9) / 100
