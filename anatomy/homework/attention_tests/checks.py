"""The graded check of homework 3 (notebook 19_homework_attention_tests): one question's tests,
graded by the planted bugs they catch (mutation.py).

    hw.check_tests(q1_tests, question="q1", seed=0)   # q1_tests: a list of test functions

In the notebook the tests run here, in the student's process (formative feedback). In the trusted
grader `tests` are proxies of the child's functions: each run builds the implementation under test
in the child (the substitute subject.py, sent there as source; the student's code never receives its
name, only the object) and calls the test there under the run's time limit, seeded with `seed`, so a
test that hangs or kills the child costs this question only (the grader then starts a fresh child).
The score is partial: `PartialCredit.share` of the question's points (the grader reads it).
"""
from __future__ import annotations

from typing import Any, Callable

from anatomy.homework.attention_tests import subject
from anatomy.homework.attention_tests.mutation import TEST_SECONDS, grade_question, run_one
from anatomy.homework.attention_tests.mutants import QUESTIONS
from anatomy.homework.feedback import Feedback
from anatomy.homework.messages import Together, current


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


def sources(named: dict[str, Any]) -> str:
    """The local tests' source, for review.forbidden (the grader's proxies: "", its static review did that)."""
    import inspect
    import textwrap
    found = []
    for test in named.values():
        try:
            found.append(textwrap.dedent(inspect.getsource(test)))
        except (OSError, TypeError):  # a proxy, a builtin or a lambda typed at a prompt
            pass
    return "\n\n".join(found)


def runner(named: dict[str, Any], seed: int = 0) -> Callable[[str, str | None, float], str | None]:
    """run(name, bug, seconds): here, or in the grader's child when the tests are its proxies."""
    session = next((getattr(t, "_session", None) for t in named.values()), None)
    if session is None:
        return lambda name, bug, seconds: run_one(named[name], subject.build(bug), seconds, seed)

    def in_child(name: str, bug: str | None, seconds: float) -> str | None:
        impl = session.send("call", of=subject.build, args=[bug], kwargs={})  # a fresh one each run
        try:
            session.send("call", of=named[name], args=[impl], kwargs={}, seed=seed, timeout=seconds)
        except Feedback:  # a refused library call: the grader's own words
            raise
        except Exception as error:  # what the test raised in the child (ChildFailed is not an Exception here)
            return f"{type(error).__name__}: {str(error)[:200]}"
        return None
    return in_child


def check_tests(tests: Any, question: str = "q1", seed: int = 0, language: str | None = None,
                test_seconds: float = TEST_SECONDS) -> None:
    """Raise PartialCredit unless `tests` catch every planted bug of `question` and fail no
    equivalent one (its share then says what they earned); Feedback when they cannot be run."""
    if question not in QUESTIONS:
        raise ValueError(f"question must be one of {sorted(QUESTIONS)}, got {question!r}")
    named = names_of(tests)
    language = current() if language is None else language  # the notebook's edition, or the grader's choice
    graded = grade_question(question, list(named), runner(named, seed), language, source=sources(named),
                            test_seconds=test_seconds)
    if graded.share < 1.0 or len(graded.lines) > 1:
        raise PartialCredit(Together(*graded.lines, sep="\n"), graded.share)  # a line each, worded by say(key, language)
