"""Feedback: what a student reads when a check fails, in plain words, never the checker's source.

Part of the homework framework (see anatomy.homework). A check raises Feedback; the `graded`
decorator turns it into one printed paragraph (so otter shows "Got: <feedback>" rather than a
traceback through the checker). A Mistake is a classic error implemented on purpose: when the
student's tensor equals a mistake's tensor, the feedback names it, with the value that gave it away;
the Feedback then carries the mistake's name, which is all a hidden test shows. Every text is a
catalogue Message (anatomy.homework.messages: a key, its fields, English and Korean), worded in the
language its reader gets: the grader's (`text(language)`) or the notebook's edition. The same checks run
in the trusted grader (anatomy_grading) on proxies of the child's objects: `type_of` reads the class
a proxy reports, where a check must compare classes.
"""
from __future__ import annotations

import functools
import sys
from dataclasses import dataclass
from typing import Any, Callable

import torch

from anatomy.homework.messages import Message, Together, as_message, text_of

TOLERANCE = {torch.float16: (1e-2, 1e-2), torch.bfloat16: (3e-2, 2e-2)}  # (atol, rtol); others (1e-5, 1e-5)


class Feedback(AssertionError):
    """A failed check, in words a student can act on: Feedback("key", name, **fields), or a Message;
    `name` is the named mistake (a Message or a key), if any."""

    def __init__(self, message: str, name: str | None = None, /, **fields: object) -> None:
        self.message = message if isinstance(message, Message) else Message(message, **fields)
        super().__init__(self.message)
        self.name = name if name is None or isinstance(name, Message) else Message(name)

    def text(self, language: str) -> str:
        """The feedback worded in `language` ("en" or "ko")."""
        return text_of(self.message, language)


def type_of(value: Any) -> Any:
    """type(value), or for a proxy of the grader's child the class the child reports."""
    return value.__remote_type__ if hasattr(type(value), "__remote_type__") else type(value)


def call(answer: Callable, *args: Any) -> Any:
    """Run a student's function; an untouched stub or a crash becomes Feedback."""
    try:
        return answer(*args)
    except NotImplementedError as error:
        raise Feedback("not_implemented", error=str(error)) from None
    except Feedback:
        raise
    except Exception as error:  # any crash in the student's code is feedback, never a grader error
        raise Feedback("code_raised", error_type=type(error).__name__, error=str(error)) from None


def same(got: torch.Tensor, expected: torch.Tensor, atol: float = 1e-5) -> bool:
    """Equal shapes and values, within what got's dtype can hold (float64, float16, bfloat16 accepted)."""
    if got.shape != expected.shape:
        return False
    low_atol, rtol = TOLERANCE.get(got.dtype, (atol, 1e-5))
    return bool(torch.allclose(got.detach().double().nan_to_num(), expected.detach().double().nan_to_num(),
                               atol=max(atol, low_atol), rtol=rtol))


def first_difference(got: torch.Tensor, expected: torch.Tensor, what: str) -> Message:
    """The shape, or the entry that differs most, in words (`what`: a "what_..." key or Message)."""
    what = as_message(what)
    if got.shape != expected.shape:
        return Message("shape_differs", what=what, got=tuple(got.shape), expected=tuple(expected.shape))
    gap = (got.detach().double().nan_to_num() - expected.detach().double().nan_to_num()).abs()
    index = tuple(int(i) for i in torch.unravel_index(gap.argmax(), gap.shape))
    return Message("entry_differs", what=what, index=list(index), got=got[index].item(), expected=expected[index].item())


@dataclass(frozen=True)
class Mistake:
    """A classic mistake: the catalogue keys of its name in words and of a hint, and how to show the
    value that gives it away."""
    key: str
    hint_key: str
    evidence: Callable[[torch.Tensor, torch.Tensor, Message], Message] = first_difference

    @property
    def words(self) -> Message:
        return Message(self.key)

    def feedback(self, got: torch.Tensor, expected: torch.Tensor, what: str) -> Feedback:
        what = as_message(what)
        return Feedback("mistake", self.words, words=self.words, evidence=self.evidence(got, expected, what),
                        hint=Message(self.hint_key))


def compare(got: Any, expected: torch.Tensor, what: str, variants: list[tuple[Mistake, torch.Tensor]] | None = None,
            other_checks: Callable[[], None] = lambda: None, hint: str = "") -> None:
    """Raise Feedback unless got == expected, naming the mistake whose tensor `got` equals; if none
    does, run other_checks, then report the entry that differs most. `what` and `hint` are catalogue
    keys ("what_weights"; a hint's words start with "; ")."""
    what = as_message(what)
    if not isinstance(got, torch.Tensor):
        raise Feedback("not_a_tensor", what=what, got=type_of(got).__name__)
    if not (got.is_floating_point() or got.dtype == torch.bool) or got.is_complex():
        raise Feedback("wrong_dtype", what=what, got=str(got.dtype), expected=str(expected.dtype))
    if same(got, expected):
        return
    for mistake, wrong in variants or ():
        if same(got, wrong):
            raise mistake.feedback(got, expected, what)
    other_checks()
    dtype = Message("dtype_note", got=str(got.dtype), expected=str(expected.dtype)) if got.dtype != expected.dtype else ""
    raise Feedback(Together(first_difference(got, expected, what), Message(hint) if hint else "", dtype))


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
    """Decorator for a homework's public check functions: prints the feedback (in the notebook's
    language, anatomy.homework.messages.speak), nothing when right.
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
                raise Feedback("weight_shape", name=name, got=tuple(value.shape), expected=tuple(state[name].shape))
            mapped[name] = state[name].to(value.dtype)
    theirs.load_state_dict(mapped, strict=False)
