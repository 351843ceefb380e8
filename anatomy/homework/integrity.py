"""Integrity guards: checks that the student's code, running in the same interpreter, cannot switch off.

Part of the homework framework (see anatomy.homework). otter runs the student's notebook and then the
tests in the same Python process, so a notebook could rebind a checker's name, replace a library
function (`torch.allclose = lambda *a, **k: True`) or call a library attention instead of writing
it. Three guards close those routes:
- `freeze(module)`: the grading modules' names are read-only, and a later swap through the module's
  `__dict__` is noticed (the modules are watched like the library).
- `require_intact()`: every function of torch, torch.nn.functional, torch.testing, math, the
  watched builtins, the key torch/anatomy classes and the grading modules is compared with the
  snapshot taken when anatomy.homework was first imported (before any student code); a replaced
  one fails the question, naming it (one defined in a notebook before the snapshot counts too).
- `forbid(...)` (in tracing.py) records the library functions the student's code calls.
"""
from __future__ import annotations

import builtins
import math
import sys
import sysconfig
import types
from pathlib import Path
from typing import Any

import torch
import torch._dynamo  # noqa: F401  (a dispatch mode loads it, and it rewraps torch functions: load it first)
import torch.nn.functional as F
from torch import nn

from anatomy.homework.feedback import Feedback

WATCHED_BUILTINS = ("__import__", "isinstance", "issubclass", "type", "len", "abs", "max", "min", "sum",
                    "any", "all", "getattr", "hasattr", "callable", "sorted", "zip", "range", "repr",
                    "round", "float", "int", "str", "tuple", "list", "dict", "set", "vars", "id", "iter",
                    "next", "enumerate", "super", "object")
LIBRARY_ROOTS = tuple(str(Path(p).resolve()) for p in {sysconfig.get_paths()["purelib"],
                      sysconfig.get_paths()["platlib"], sysconfig.get_paths()["stdlib"],
                      str(Path(torch.__file__).parent.parent), str(Path(__file__).parent.parent)})
_snapshot: dict[tuple[str, str], Any] = {}
_class_keys: dict[str, set[str]] = {}
_namespaces: dict[str, Any] = {}
_tainted: list[str] = []  # replaced by notebook code before the snapshot was taken


def is_foreign(value: Any) -> bool:
    """A Python function whose code was not loaded from an installed library (e.g. a notebook's)."""
    code = getattr(value, "__code__", None)
    if code is None:
        return False
    if code.co_filename.startswith("<"):  # generated code, e.g. a dataclass's __init__
        return getattr(value, "__module__", "__main__") in ("__main__", None)
    return not str(Path(code.co_filename).resolve()).startswith(LIBRARY_ROOTS)


def watch(label: str, namespace: Any, names: tuple[str, ...] | None = None) -> None:
    """Snapshot the callables of a module or class (or just `names`); require_intact() compares them."""
    _namespaces[label] = namespace
    items = vars(namespace)
    for name in names or tuple(items):
        value = items.get(name)
        if callable(value) or isinstance(value, (staticmethod, classmethod, property)):
            if is_foreign(value) and label.split(".")[0] != "__main__":
                _tainted.append(f"{label}.{name}")
            _snapshot.setdefault((label, name), value)
    if isinstance(namespace, type):
        _class_keys.setdefault(label, set(items))


def watch_package(package: str) -> None:
    """Watch every loaded module of `package` (but its homework subpackage) and the classes it defines."""
    for name, module in list(sys.modules.items()):
        if (name == package or name.startswith(package + ".")) and ".homework" not in name and module:
            watch(name, module)
            for value in list(vars(module).values()):
                if isinstance(value, type) and value.__module__ == name:
                    watch(f"{name}.{value.__qualname__}", value)


def replaced() -> list[str]:
    """Names whose current value differs from the snapshot (or that shadow a watched class's methods)."""
    found = list(_tainted)
    for (label, name), value in _snapshot.items():
        if vars(_namespaces[label]).get(name, value) is not value:
            found.append(f"{label}.{name}")
    for label, keys in _class_keys.items():  # methods added later: the notebook's own, not a library's
        added = {name: vars(_namespaces[label])[name] for name in set(vars(_namespaces[label])) - keys}
        found += [f"{label}.{name}" for name, value in added.items() if callable(value) and is_foreign(value)]
    return found


def require_intact() -> None:
    """Fail the question (Feedback) if the notebook replaced a library or grading function."""
    found = replaced()
    if found:
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        raise Feedback(f"your notebook replaced {found[0]}{more}: the checks need the real library, so "
                       "this question scores 0; remove that assignment and restart the kernel")


class ReadOnlyModule(types.ModuleType):
    """A module whose existing names cannot be rebound or deleted from outside."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in vars(self) and not name.startswith("__"):
            raise AttributeError(f"{self.__name__}.{name} is read-only: the homework's checks cannot be replaced")
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{self.__name__}.{name} is read-only: the homework's checks cannot be removed")


def freeze(module_name: str) -> None:
    """Make a grading module read-only and watch its functions (call at the end of the module)."""
    module = sys.modules[module_name]
    module.__class__ = ReadOnlyModule
    watch(module_name, module)


for _label, _namespace in {"torch": torch, "torch.nn.functional": F, "torch.testing": torch.testing,
                           "torch.linalg": torch.linalg, "math": math, "torch.Tensor": torch.Tensor,
                           "torch._C.TensorBase": torch._C.TensorBase, "torch.nn.Module": nn.Module,
                           "torch.nn.Linear": nn.Linear, "torch.nn.LayerNorm": nn.LayerNorm,
                           "torch.nn.Dropout": nn.Dropout, "torch.nn.ModuleList": nn.ModuleList}.items():
    watch(_label, _namespace)
watch("builtins", builtins, WATCHED_BUILTINS)
watch("sys", sys, ("setprofile", "getprofile"))
