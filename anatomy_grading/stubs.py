"""What otter and anatomy.homework are in the grader's child: empty stand-ins, so a notebook's import
cell and its grader.check cells run, and nothing of the grading code is there to read or to call.
Sent to the child as source (child.py).
"""
from __future__ import annotations

import functools
import types
from typing import Any


class Stub:
    """What otter and anatomy.homework give in the child: nothing (calls, attributes, loops all empty)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Stub:
        return self

    def __getattr__(self, name: str) -> Stub:
        if name.startswith("__"):
            raise AttributeError(name)
        return self

    def __iter__(self):
        return iter(())

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "<not available in the grader>"


class HomeworkStub(Stub):
    """What a stub of anatomy.homework gives (homework 3's `impl = hw.practice(None)` included), marked so that
    homework 3's feedback can name a test that reads one (anatomy.homework.attention_tests.state.STAND_IN)."""

    __homework_stand_in__ = True

    def __call__(self, *args: Any, **kwargs: Any) -> HomeworkStub:  # a new one: `impl = hw.practice(None)` is not `hw`
        return HomeworkStub()


def module_attribute(name: str, kind: type[Stub] = Stub) -> Stub:
    """A stub module's attributes: stubs (`kind`), but no dunders (inspect.getmodule asks every module for __file__)."""
    if name.startswith("__"):
        raise AttributeError(name)
    return kind()


class StubFinder:
    """Serves an empty module for every name under `roots` that is not already loaded."""

    def __init__(self, roots: tuple[str, ...]) -> None:
        self.roots = roots

    def find_spec(self, name, path=None, target=None):
        if any(name == root or name.startswith(root + ".") for root in self.roots):
            import importlib.machinery

            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        module = types.ModuleType(spec.name)
        homework = spec.name == "anatomy.homework" or spec.name.startswith("anatomy.homework.")
        module.__path__ = []
        module.__getattr__ = functools.partial(module_attribute, kind=HomeworkStub) if homework else module_attribute
        return module

    def exec_module(self, module) -> None:
        pass
