"""Every run of a homework-3 test starts from the same state (notebook 19_homework_attention_tests), so that
nothing a test keeps (a counter, a list it appends to, an itertools.count) tells one run from another.

`snapshot(tests)` copies the values of the globals the tests, and the functions and classes they use, read
(not modules, functions, classes: their state is the review's, review.py); stand_in.run_test puts fresh
copies back before each run. A global that cannot be copied (a generator) cannot be reset: StateKept, and
the question scores 0 with a message. Sent to the grader's child as source (plan.py): standard library only.
"""
from __future__ import annotations

import copy
import types
from typing import Any


def read_names(function: Any, seen: set[int]) -> dict[int, tuple[dict, set[str]]]:
    """{id(globals): (globals, names)}: the global names `function` and the functions it reads read."""
    found: dict[int, tuple[dict, set[str]]] = {}
    if not isinstance(function, types.FunctionType) or id(function) in seen:
        return found
    seen.add(id(function))
    scope, codes, names = function.__globals__, [function.__code__], set()
    while codes:
        code = codes.pop()
        names |= set(code.co_names)
        codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
    found[id(scope)] = (scope, {n for n in names if n in scope})
    for name in sorted(found[id(scope)][1]):
        value = scope[name]
        inner = [value] if isinstance(value, types.FunctionType) else list(vars(value).values()) if isinstance(value, type) else []
        for item in inner:
            for key, (other, more) in read_names(item, seen).items():
                found.setdefault(key, (other, set()))[1].update(more)  # sorted() above iterates a copy
    return found


STAND_IN = "__homework_stand_in__"  # a class attribute True on what stands in for the homework's own objects: the
# notebook's practice object (stand_in.Implementation) and, in the grader's child, what the stubbed `hw` gives


def stand_ins_read(tests: list) -> list[str | None]:
    """For each test, a global it reads (or one of its defaults holds) that is a stand-in, else None: the
    notebook's practice object (`impl = hw.practice(None)`), which answers nothing while a check runs, or in
    the grader's child the stub `hw.practice(None)` gives there. A test that uses one does not test the
    implementation it receives (run it in the grader's child too: the tests' globals live there)."""
    def stand_in(value: Any) -> bool:
        return getattr(type(value), STAND_IN, False) is True
    found: list[str | None] = []
    for test in tests:
        read = [name for scope, names in read_names(test, set()).values() for name in sorted(names) if stand_in(scope[name])]
        if isinstance(test, types.FunctionType):  # its defaults (`ref=impl`): the global it was, else the parameter
            positional = test.__code__.co_varnames[:test.__code__.co_argcount]
            defaults = list(zip(positional[::-1], (test.__defaults__ or ())[::-1])) + list((test.__kwdefaults__ or {}).items())
            read += [next((name for name, bound in test.__globals__.items() if bound is value), parameter)
                     for parameter, value in defaults if stand_in(value)]
        found.append(read[0] if read else None)
    return found


class StateKept(TypeError):
    """A global the tests read that cannot be copied, so not reset between runs: (its name, its type's name)."""


class State:
    """[(a module's globals, {name: a copy of its value})]: what each run starts from (one object, so
    that the grader holds it as a handle and never reads the globals over the wire)."""

    def __init__(self, saved: list[tuple[dict, dict]]) -> None:
        self.saved = saved

    def restore(self) -> None:
        """Fresh copies of the saved values back into their globals (a run's changes reach no other run)."""
        for scope, data in self.saved:
            scope.update(copy.deepcopy(data))


def snapshot(tests: list) -> State:
    """The data the tests read (globals that are not modules, functions, classes), copied; StateKept
    naming a value that cannot be copied, so cannot be reset."""
    seen: set[int] = set()
    scopes: dict[int, tuple[dict, set[str]]] = {}
    for test in tests:
        for key, (scope, names) in read_names(test, seen).items():
            scopes.setdefault(key, (scope, set()))[1].update(names)
    saved = []
    for scope, names in scopes.values():
        data = {n: scope[n] for n in names if not isinstance(scope[n], (types.ModuleType, types.FunctionType, type,
                                                                        types.BuiltinFunctionType))}
        try:
            saved.append((scope, copy.deepcopy(data)))
        except Exception:
            stuck = next(n for n, v in data.items() if not copyable(v))
            raise StateKept(stuck, type(data[stuck]).__name__) from None
    return State(saved)


def snapshot_in_child(tests: list) -> State | list[str]:
    """snapshot in the grader's child: the State, or [name, type] of the global it could not copy."""
    try:
        return snapshot(tests)
    except StateKept as kept:
        return [str(kept.args[0]), str(kept.args[1])]


def copyable(value: Any) -> bool:
    try:
        copy.deepcopy(value)
        return True
    except Exception:
        return False
