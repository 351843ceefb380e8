"""Feedback: what a student reads when a check fails, in plain words, never the checker's source.

Part of the homework framework (see anatomy.homework). A check raises Feedback; the `graded`
decorator turns it into one printed paragraph (so otter shows "Got: <feedback>" rather than a
traceback through the checker). A Mistake is a classic error implemented on purpose: when the
student's tensor equals a mistake's tensor, the feedback names it, with the value that gave it away.
"""
from __future__ import annotations

import functools
import sys
from dataclasses import dataclass
from typing import Any, Callable

import torch


class Feedback(AssertionError):
    """A failed check, in words a student can act on."""


def call(answer: Callable, *args: Any) -> Any:
    """Run a student's function; an untouched stub or a crash becomes Feedback."""
    try:
        return answer(*args)
    except NotImplementedError as error:
        raise Feedback(f"not yet implemented: {error}") from None
    except Feedback:
        raise
    except Exception as error:  # any crash in the student's code is feedback, never a grader error
        raise Feedback(f"your code raised {type(error).__name__}: {error}") from None


def same(got: torch.Tensor, expected: torch.Tensor, atol: float = 1e-5) -> bool:
    return got.shape == expected.shape and bool(torch.allclose(got.nan_to_num(), expected.nan_to_num(), atol=atol))


def first_difference(got: torch.Tensor, expected: torch.Tensor, what: str) -> str:
    """The shape, or the entry that differs most, in words."""
    if got.shape != expected.shape:
        return f"your {what} have shape {tuple(got.shape)}, expected {tuple(expected.shape)}"
    gap = (got.nan_to_num() - expected.nan_to_num()).abs()
    index = tuple(int(i) for i in torch.unravel_index(gap.argmax(), gap.shape))
    return f"your {what}{list(index)} is {got[index].item():.3f} where {expected[index].item():.3f} was expected"


@dataclass(frozen=True)
class Mistake:
    """A classic mistake: its name in words, a hint, and how to show the value that gives it away."""
    words: str
    hint: str
    evidence: Callable[[torch.Tensor, torch.Tensor, str], str] = first_difference

    def feedback(self, got: torch.Tensor, expected: torch.Tensor, what: str) -> Feedback:
        return Feedback(f"{self.words} ({self.evidence(got, expected, what)}): {self.hint}.")


def compare(got: Any, expected: torch.Tensor, what: str, variants: list[tuple[Mistake, torch.Tensor]] | None = None,
            other_checks: Callable[[], None] = lambda: None, hint: str = "") -> None:
    """Raise Feedback unless got == expected, naming the mistake whose tensor `got` equals; if none
    does, run other_checks, then report the entry that differs most."""
    if not isinstance(got, torch.Tensor):
        raise Feedback(f"your {what} must be a torch.Tensor, got {type(got).__name__}")
    if same(got, expected):
        return
    for mistake, wrong in variants or ():
        if same(got, wrong):
            raise mistake.feedback(got, expected, what)
    other_checks()
    raise Feedback(f"{first_difference(got, expected, what)}{hint}")


def feedback_of(check: Callable, *args: Any, **kwargs: Any) -> str | None:
    """Run a check; None if it passes, else the feedback. Refuses if the library was tampered with."""
    from anatomy.homework.integrity import require_intact

    try:
        require_intact()
        check(*args, **kwargs)
    except Feedback as feedback:
        return str(feedback)
    return None


def graded(check: Callable) -> Callable:
    """Decorator for a homework's public check functions: prints the feedback, nothing when right.
    The undecorated check stays reachable as `.feedback(...)`, which returns the text instead."""
    @functools.wraps(check)
    def run(*args: Any, **kwargs: Any) -> None:
        message = feedback_of(check, *args, **kwargs)
        if message is not None:
            sys.stdout.write(message + "\n")

    run.feedback = functools.partial(feedback_of, check)  # type: ignore[attr-defined]
    return run
