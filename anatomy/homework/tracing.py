"""Tracing: which library functions the student's code calls, for write-it-yourself questions.

Part of the homework framework (see anatomy.homework). `forbid(functions, aten)` records, while the
student's code runs, every call of a forbidden Python function or builtin (by identity: a renamed
import is still seen; sys.setprofile) and every forbidden ATen op (TorchDispatchMode), so a library
attention created inside `forward` is caught too. `methods(*classes)` lists a class's functions.
"""
from __future__ import annotations

import sys
import types
from contextlib import contextmanager
from typing import Any, Iterator

from torch.utils._python_dispatch import TorchDispatchMode

from anatomy.homework.feedback import Feedback


class _AtenRecorder(TorchDispatchMode):
    def __init__(self, forbidden: dict[str, str], seen: list[str]) -> None:
        super().__init__()
        self.forbidden, self.seen = forbidden, seen

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = func.name()
        self.seen += [label for fragment, label in self.forbidden.items() if fragment in name]
        return func(*args, **(kwargs or {}))


@contextmanager
def forbid(functions: dict[Any, str], aten: dict[str, str] | None = None) -> Iterator[list[str]]:
    """Record calls of `functions` (Python functions or builtins -> label) and of ATen ops whose name
    contains a key of `aten`, while the block runs. Yields the list of labels seen; the caller
    decides. Fails if the student's code removed the tracing."""
    codes = {f.__code__: label for f, label in functions.items() if hasattr(f, "__code__")}
    natives = {id(f): label for f, label in functions.items() if not hasattr(f, "__code__")}
    seen: list[str] = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code in codes:
            seen.append(codes[frame.f_code])
        elif event == "c_call" and id(arg) in natives:
            seen.append(natives[id(arg)])

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        with _AtenRecorder(aten or {}, seen):
            yield seen
        if sys.getprofile() is not profile:
            raise Feedback("tracing_off")
    finally:
        sys.setprofile(previous)


def methods(*classes: type) -> dict[Any, str]:
    """Every function defined in these classes, labelled with the class's name."""
    found = {}
    for cls in classes:
        label = f"{cls.__module__.split('.')[0]}.{cls.__qualname__}".replace("torch.", "nn.", 1)
        found.update({value: label for value in vars(cls).values() if isinstance(value, types.FunctionType)})
    return found
