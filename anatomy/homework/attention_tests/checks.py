"""The graded check of homework 3 (notebook 19_homework_attention_tests): one question's tests,
graded by the planted bugs they catch (mutation.py).

    hw.check_tests(q1_tests, question="q1", seed=0)   # q1_tests: a list of test functions

In the notebook the tests run here, in the student's process (formative feedback). In the trusted
grader `tests` are proxies of the child's functions, and each run calls the test there under the run's
time limit, so a test that hangs or kills the child costs this question only (the grader then starts a
fresh child). Either way the implementation under test is built in a process apart from the tests (server.py)
and the test receives stand_in.Implementation proxies, the same whichever implementation runs.
The score is partial: `PartialCredit.share` of the question's points (the grader reads it).
"""
from __future__ import annotations

from typing import Any

from anatomy.homework.attention_tests import clock, mutation, server_link, stand_in, state
from anatomy.homework.attention_tests.suite_source import sources
from anatomy.homework.attention_tests.mutation import TEST_SECONDS, grade_question, in_process
from anatomy.homework.attention_tests.mutants import QUESTIONS
from anatomy.homework.attention_tests.practice import checking
from anatomy.homework.feedback import Feedback
from anatomy.homework.messages import Together, current, say

SLACK = 30.0  # seconds the grader waits past a run's clock limit: the child's own time to end the fork and answer


class PartialCredit(Feedback):
    """A question's feedback with the share (0..1) of its points the tests earned."""

    def __init__(self, message: str, share: float) -> None:
        super().__init__(message, None)
        self.share = share


def names_of(tests: Any) -> dict[str, Any]:
    """{a name: the test} for a list (or tuple) of test functions, local or the grader's proxies."""
    try:
        items = list(tests)
    except TypeError:
        raise Feedback("not_a_list", got=type(tests).__name__) from None
    named: dict[str, Any] = {}
    for number, test in enumerate(items, 1):
        if not callable(test):
            raise Feedback("not_a_function", number=number, got=type(test).__name__)
        named[f"{getattr(test, '__name__', 'test')} (#{number})"] = test
    return named


def runner(named: dict[str, Any], seed: int = 0,
           test_seconds: float = TEST_SECONDS) -> mutation.Run:
    """run(name, bug, cpu, wall): the test here (the notebook) or in the grader's child (its proxies), its
    implementation in the server's process either way, every run from the same state (state.py). In the child
    the run's fork has `cpu` seconds of CPU time and `wall` on the clock (clock.py); the grader waits for the
    child's answer `wall` and SLACK more."""
    session = next((getattr(t, "_session", None) for t in named.values()), None)
    if session is None:
        return in_process(named, seed=seed)
    server = server_link.shared()
    start = session.send("call", of=state.snapshot_in_child, args=[list(named.values())], kwargs={})  # a handle
    if isinstance(start, list):
        raise state.StateKept(*start)

    def in_child(name: str, bug: str | None, cpu: float, wall: float) -> tuple[str | None, float]:
        server.build(bug, seed)
        session.child.relay = server.relay  # the child's test asks; the grader forwards a test's requests only
        try:  # the run in a fork of the child (trial.py): None, or why the test failed
            why, used = session.send("call", of=stand_in.run_in_child, args=[named[name], start, seed, cpu, wall], kwargs={},
                                     timeout=wall + SLACK)
        except Feedback:  # a refused library call: the grader's own words
            raise
        except Exception as error:  # what the child raised (ChildFailed is not an Exception here)
            return f"{type(error).__name__}: {str(error)[:200]}", 0.0
        except BaseException as failed:  # ChildFailed: the child ended a run at a limit or lost it (clock.py), or was late
            code = {f"stopped (exit code {c})": c for c in (clock.LOST, clock.LATE, clock.SPENT)}.get(str(failed))
            if code == clock.LOST:
                raise type(failed)(f"a run of {name} ended without its result") from None
            if code is None and not str(failed).startswith("did not finish"):
                raise
            if code != clock.SPENT and wall < clock.WALL_FACTOR * test_seconds:  # the question's clock ran out
                seconds = clock.QUESTION_FACTOR * mutation.QUESTION_SECONDS
                raise type(failed)(f"ran past the question's clock of {seconds:g} s") from None
            raise type(failed)(f"a run of {name} ran past its limit of {test_seconds:g} s") from None
        finally:
            session.child.relay = None
        return None if why is None else str(why)[:300], float(used)
    return in_child


def stand_ins_of(named: dict[str, Any]) -> dict[str, str]:
    """{a test's name: the global practice object it reads} (state.stand_ins_read), here or in the grader's child."""
    tests = list(named.values())
    session = next((getattr(t, "_session", None) for t in tests), None)
    found = state.stand_ins_read(tests) if session is None else \
        session.send("call", of=state.stand_ins_read, args=[tests], kwargs={})
    return {name: read for name, read in zip(named, found) if read}


def check_tests(tests: Any, question: str = "q1", seed: int = 0, language: str | None = None,
                test_seconds: float = TEST_SECONDS) -> None:
    """Raise PartialCredit unless `tests` catch every planted bug of `question` and fail no
    equivalent one (its share then says what they earned); Feedback when they cannot be run."""
    if question not in QUESTIONS:
        raise ValueError(f"question must be one of {sorted(QUESTIONS)}, got {question!r}")
    named = names_of(tests)
    language = current() if language is None else language  # the notebook's edition, or the grader's choice
    try:
        run = runner(named, seed, test_seconds)
    except state.StateKept as kept:  # here, or in the grader's child (snapshot_in_child names it)
        key = "practice_global" if kept.args[1] == stand_in.Implementation.__name__ else "state_kept"  # hw.practice(...)
        raise PartialCredit(Together(say(key, language, name=repr(kept.args[0]), kind=kept.args[1])), 0.0) from None
    with checking(language):  # the notebook's practice objects answer nothing meanwhile
        graded = grade_question(question, list(named), run, language, source=sources(named), test_seconds=test_seconds,
                                stand_ins=stand_ins_of(named))
    if graded.share < 1.0 or len(graded.lines) > 1:
        raise PartialCredit(Together(*graded.lines, sep="\n"), graded.share)  # a line each, worded by say(key, language)
