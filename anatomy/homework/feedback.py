"""Feedback: what a student reads when a check fails, in plain words, never the checker's source.

Part of the homework framework (see anatomy.homework). A check raises Feedback; the `graded`
decorator turns it into one printed paragraph (so otter shows "Got: <feedback>" rather than a
traceback through the checker). A Mistake is a classic error implemented on purpose: when the
student's tensor equals a mistake's tensor, the feedback names it, with the value that gave it away;
the Feedback then carries the mistake's name, which is all a hidden test shows. The same checks run
in the trusted grader (anatomy_grading) on proxies of the child's objects: `type_of` reads the class
a proxy reports, where a check must compare classes.
"""
from __future__ import annotations

import functools
import sys
from dataclasses import dataclass
from typing import Any, Callable

import torch

TOLERANCE = {torch.float16: (1e-2, 1e-2), torch.bfloat16: (3e-2, 2e-2)}  # (atol, rtol); others (1e-5, 1e-5)


class Feedback(AssertionError):
    """A failed check, in words a student can act on; `name` is the named mistake, if any."""

    def __init__(self, message: str, name: str | None = None) -> None:
        super().__init__(message)
        self.name = name


def type_of(value: Any) -> Any:
    """type(value), or for a proxy of the grader's child the class the child reports."""
    return value.__remote_type__ if hasattr(type(value), "__remote_type__") else type(value)


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
    """Equal shapes and values, within what got's dtype can hold (float64, float16, bfloat16 accepted)."""
    if got.shape != expected.shape:
        return False
    low_atol, rtol = TOLERANCE.get(got.dtype, (atol, 1e-5))
    return bool(torch.allclose(got.detach().double().nan_to_num(), expected.detach().double().nan_to_num(),
                               atol=max(atol, low_atol), rtol=rtol))


def first_difference(got: torch.Tensor, expected: torch.Tensor, what: str) -> str:
    """The shape, or the entry that differs most, in words."""
    if got.shape != expected.shape:
        return f"your {what} have shape {tuple(got.shape)}, expected {tuple(expected.shape)}"
    gap = (got.detach().double().nan_to_num() - expected.detach().double().nan_to_num()).abs()
    index = tuple(int(i) for i in torch.unravel_index(gap.argmax(), gap.shape))
    return f"your {what}{list(index)} is {got[index].item():.3f} where {expected[index].item():.3f} was expected"


@dataclass(frozen=True)
class Mistake:
    """A classic mistake: its name in words, a hint, and how to show the value that gives it away."""
    words: str
    hint: str
    evidence: Callable[[torch.Tensor, torch.Tensor, str], str] = first_difference

    def feedback(self, got: torch.Tensor, expected: torch.Tensor, what: str) -> Feedback:
        return Feedback(f"{self.words} ({self.evidence(got, expected, what)}): {self.hint}.", name=self.words)


def compare(got: Any, expected: torch.Tensor, what: str, variants: list[tuple[Mistake, torch.Tensor]] | None = None,
            other_checks: Callable[[], None] = lambda: None, hint: str = "") -> None:
    """Raise Feedback unless got == expected, naming the mistake whose tensor `got` equals; if none
    does, run other_checks, then report the entry that differs most."""
    if not isinstance(got, torch.Tensor):
        raise Feedback(f"your {what} must be a torch.Tensor, got {type_of(got).__name__}")
    if not (got.is_floating_point() or got.dtype == torch.bool) or got.is_complex():
        raise Feedback(f"your {what} are {got.dtype}; return the input's dtype, {expected.dtype}")
    if same(got, expected):
        return
    for mistake, wrong in variants or ():
        if same(got, wrong):
            raise mistake.feedback(got, expected, what)
    other_checks()
    dtype = f" (and they are {got.dtype}: return the input's dtype, {expected.dtype})" if got.dtype != expected.dtype else ""
    raise Feedback(f"{first_difference(got, expected, what)}{hint}{dtype}")


def verdict_of(check: Callable, *args: Any, **kwargs: Any) -> Feedback | None:
    """Run a check; None if it passes, else its Feedback."""
    try:
        check(*args, **kwargs)
    except Feedback as feedback:
        return feedback
    return None


def feedback_of(check: Callable, *args: Any, **kwargs: Any) -> str | None:
    """Run a check; None if it passes, else the feedback's text."""
    found = verdict_of(check, *args, **kwargs)
    return None if found is None else str(found)


def graded(check: Callable) -> Callable:
    """Decorator for a homework's public check functions: prints the feedback, nothing when right.
    The undecorated check stays reachable as `.feedback(...)` (the text) and `.verdict(...)` (the
    Feedback, with the mistake's name)."""
    @functools.wraps(check)
    def run(*args: Any, **kwargs: Any) -> None:
        message = feedback_of(check, *args, **kwargs)
        if message is not None:
            sys.stdout.write(message + "\n")

    run.feedback = functools.partial(feedback_of, check)  # type: ignore[attr-defined]
    run.verdict = functools.partial(verdict_of, check)  # type: ignore[attr-defined]
    return run


def load_check_weights(theirs: Any, state: dict) -> None:
    """Load the check's own weights (`state`) into the student's module, by name, each in the dtype the
    student's parameter has (float64 is fine); a parameter the check does not know keeps its value. The
    check then compares the module's output with its reference holding the same weights on fresh inputs,
    so only a module that computes what is asked with its weights can pass (zero or made-up weights cannot)."""
    mapped = {}
    for name, value in theirs.state_dict().items():
        if name in state and isinstance(value, torch.Tensor):
            if tuple(value.shape) != tuple(state[name].shape):
                raise Feedback(f"{name} is {tuple(value.shape)}; this layer's {name} is {tuple(state[name].shape)}")
            mapped[name] = state[name].to(value.dtype)
    theirs.load_state_dict(mapped, strict=False)
