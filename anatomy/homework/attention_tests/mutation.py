"""Grading a student's tests by the bugs they catch (homework 3, notebook 19_homework_attention_tests).

Each question's tests (functions `test_...(impl)`) run against the correct implementation and
against each of the question's mutants and every equivalent mutant (mutants.py: the list is public;
which one a run gets is what a test cannot learn). The trials come in a secret random order (the
grader's rng): every mutant, real or equivalent, runs twice (RUNS_PER_MUTANT) and the correct one
CORRECT_RUNS times, at random positions; on each trial the tests run in turn until one fails (raises),
so each test runs at most once per trial. A real mutant is caught when the tests fail on it in both of
its runs; an equivalent one counts as failed (a quarter of the points) when they fail on it in either.
The question's share: caught / its mutants, minus a quarter for each equivalent mutant failed; 0 when a
test fails on any correct run, runs past its time limit (TEST_SECONDS of CPU time a run, QUESTION_SECONDS in all;
the clock stops a run at clock.WALL_FACTOR, a question at QUESTION_FACTOR times), has no tests or too many, or its source
does something review.py forbids (then it is flagged too; the trusted grader applies review.py through plan.SUITE).
Every test run starts from the case's torch seed (the same for every implementation), so it draws the same inputs
and weights whichever implementation it gets, and an honest test gives the same verdict in both runs of a mutant.

Why a test that does not read the implementation's behaviour earns nothing but by chance: in the grader it keeps from
one trial to the next only what the kernel keeps for every process (trial.py: what is still open), and its process id
tells it at most its position; the order is a secret permutation, so its failures fall on a set F of positions chosen
without knowing which implementation sits where. It scores only when F holds no correct run and both runs of a mutant;
`luck` computes the best such F's expected number of caught mutants exactly: 0.090 of q1's 9 mutants, 0.043-0.053 for
the others (tests/test_attention_tests_homework.py prints them), where 3 correct runs would allow 0.34 in q1. (A test
that tells some implementations apart by what they compute gains no more on the rest: among those it cannot tell apart
the order is still uniform.) Keeping the outputs it saw would let a test learn the correct code's outputs by majority
over the runs (the sixth reading's probe, appending to a file, earned 2.3-2.7 of 3 points): the seal makes its write
fail on the correct code, which scores 0 ("writes_file"). The feedback names categories, not mutants.
"""
from __future__ import annotations

import math
import random
import re
import time
from dataclasses import dataclass, field
from typing import Callable

from anatomy.homework.messages import say
from anatomy.homework.attention_tests.mutants import MUTANTS, Mutant
from anatomy.homework.attention_tests.review import forbidden
from anatomy.homework.attention_tests import clock, server_link, stand_in, state, trial

TEST_SECONDS, QUESTION_SECONDS, MAX_TESTS, EQUIVALENT_COST = 10.0, 90.0, 25, 0.25  # CPU seconds (clock.py)
RUNS_PER_MUTANT, CORRECT_RUNS = 2, 7  # with these, luck() < 0.1 of a mutant for every question (see the module)
Run = Callable[[str, "str | None", float, float], "tuple[str | None, float]"]  # (test, bug, CPU s, clock s) -> (why, CPU s)


@dataclass
class Graded:
    share: float = 0.0  # of the question's points, 0..1
    lines: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    survivors: list[str] = field(default_factory=list)  # mutant names, for the instructor's log only


def in_process(tests: dict[str, Callable], test_seconds: float = TEST_SECONDS, seed: int = 0) -> Run:
    """A `run(test name, bug, cpu, wall)` for grade_question that runs the tests here (the notebook's
    formative check; the trusted grader runs them in its child instead), each run in a fork of this process
    (trial.py), and each implementation in the server's process, every run from the same state (state.py).
    StateKept when that cannot be. A fork killed mid-request leaves the server's pipe in between frames:
    it is closed, and the next build starts a fresh one."""
    server, start = server_link.shared(), state.snapshot(list(tests.values()))

    def run(name: str, bug: str | None, cpu: float, wall: float) -> tuple[str | None, float]:
        server.build(bug, seed)
        return trial.isolated(lambda: stand_in.run_test(tests[name], server.ask, start, seed),
                              (min(cpu, test_seconds), wall), lambda code: server.close())
    return run


def grade_question(question: str, names: list[str], run: Run, language: str = "en", source: str = "",
                   test_seconds: float = TEST_SECONDS, question_seconds: float | None = None,
                   mutants: tuple[Mutant, ...] = MUTANTS, rng: random.Random | None = None,
                   stand_ins: dict[str, str] | None = None) -> Graded:
    """One question: its tests' `names`, `run(name, bug or None, cpu, wall)` -> (None when it passed, else why it
    failed: clock.OVER_CPU past `cpu` seconds of CPU time, "timeout" past `wall` on the clock, trial.NO_LINE; the
    CPU seconds it used), `source` the cells that define them (reviewed first), `stand_ins` {a test's name: the
    global practice object it reads} (state.stand_ins_read), named if that test fails the correct one. The trials
    in a random order drawn from `rng`: every mutant RUNS_PER_MUTANT times, the correct one CORRECT_RUNS times; a
    real mutant counts when every one of its runs fails (see the module)."""
    graded = Graded()
    if banned := forbidden(source):
        (key, fields), why = banned[0]  # what review.py refused: a catalogue key and its fields
        if why == "import_error":
            graded.lines.append(say("import_error", language, **fields))
            return graded
        graded.lines.append(say("forbidden", language, what=say(key, language, **fields), why=say(why, language)))
        graded.flags.append(f"{question}: {say(key, 'en', **fields)} ({why})")  # the instructor's log, in English
        return graded
    if not names or len(names) > MAX_TESTS:
        graded.lines.append(say("too_many", language, count=len(names), limit=MAX_TESTS) if names else say("no_tests", language))
        return graded
    stand_ins = stand_ins or {}
    own = [m for m in mutants if m.question == question]
    trials: list[Mutant | None] = [m for m in own + [m for m in mutants if m.equivalent] for _ in range(RUNS_PER_MUTANT)]
    trials += [None] * CORRECT_RUNS  # None: the correct one
    (rng or random.Random()).shuffle(trials)  # a secret order: a run's position tells nothing
    question_seconds = QUESTION_SECONDS if question_seconds is None else question_seconds
    run_wall, question_wall = clock.WALL_FACTOR * test_seconds, clock.QUESTION_FACTOR * question_seconds
    deadline, spent = time.monotonic() + question_wall, 0.0  # the question's CPU time and clock (clock.py)
    budget, over = say("question_budget", language, seconds=question_seconds), say("question_clock", language, wall=question_wall)
    failures: dict[str, int] = {}  # mutant name: how many of its runs a test failed
    failed_equivalent: dict[str, str] = {}  # equivalent mutant name: the first test that failed on it
    for mutant in trials:
        for name in names:
            wall = deadline - time.monotonic()  # a run's CPU limit is the same whatever the runs before it did
            if spent >= question_seconds or wall <= 0:
                graded.lines = [budget if wall > 0 else over]
                return graded
            why, used = run(name, mutant and mutant.name, test_seconds, min(run_wall, wall))
            spent += used
            if why in (clock.OVER_CPU, "timeout", trial.NO_LINE):  # the run's limit, the question's clock, or lost
                graded.lines = [over if why == "timeout" and wall < run_wall else say("run_lost", language, test=name)
                                if why == trial.NO_LINE else say("timeout", language, test=name, seconds=test_seconds, wall=run_wall)]
                return graded
            if why is not None and mutant is None:  # reading the practice object, not a wrong expectation: say so
                key = "practice_read" if name in stand_ins else "writes_file" if say("files_sealed", "en") in why \
                    else "correct_fails"  # the sealed grader's child refused a write (anatomy_grading/seal.py)
                graded.lines = [say(key, language, test=name, name=repr(stand_ins.get(name)), why=worded(why, language))]
                return graded
            if why is not None:
                failures[mutant.name] = failures.get(mutant.name, 0) + 1
                if mutant.equivalent:
                    failed_equivalent.setdefault(mutant.name, name)
                break
    caught = {m.name for m in own if failures.get(m.name, 0) == RUNS_PER_MUTANT}  # failed in every run
    graded.survivors = [m.name for m in own if m.name not in caught]
    graded.share = max(0.0, len(caught) / len(own) - EQUIVALENT_COST * len(failed_equivalent)) if own else 0.0
    graded.lines.append(say("score", language, caught=len(caught), total=len(own)))
    if graded.survivors:
        categories = sorted({say(m.category, language) for m in own if m.name in graded.survivors})
        graded.lines.append(say("survivors", language, categories="; ".join(categories)))
    if failed_equivalent:
        tests = ", ".join(sorted(set(failed_equivalent.values())))
        graded.lines.append(say("equivalent_failed", language, count=len(failed_equivalent), tests=tests))
    return graded


def worded(why: str, language: str) -> str:
    """A test's failure in the feedback's language where stand_in said it in the catalogue's English."""
    for key in ("copy_refused", "files_sealed", "handlers_refused", "kernel_refused"):
        why = why.replace(say(key, "en"), say(key, language))
    left = re.escape(say("thread_left", "en", threads="NAMES")).replace("NAMES", "(.*)")  # trial.py's, with the names
    return re.sub(left, lambda found: say("thread_left", language, threads=found[1]), why)


def points(share: float, question_points: float) -> float:
    return math.floor(share * question_points * 100 + 1e-9) / 100


def luck(mutants: int, equivalents: int, runs: int = RUNS_PER_MUTANT, correct: int = CORRECT_RUNS) -> float:
    """The most real mutants a test whose verdict does not depend on the implementation catches on average:
    the best over |F| = f of E[caught] for a set F of failing positions among the shuffled trials, exactly.
    F must miss every correct run (else 0): P = C(N - f, correct) / C(N, correct); then each mutant's `runs`
    positions are `runs` of the other N - correct, all in F with P = f (f - 1)... / (M (M - 1)...)."""
    total, others = runs * (mutants + equivalents) + correct, runs * (mutants + equivalents)

    def expected(f: int) -> float:
        inside = math.prod((f - i) / (others - i) for i in range(runs)) if f >= runs else 0.0
        return mutants * inside * math.comb(total - f, correct) / math.comb(total, correct)
    return max(expected(f) for f in range(total + 1))
