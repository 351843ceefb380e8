"""A code object's qualified name (`MultiheadAttention.forward`, not only `forward`) on every Python the
series supports: the trusted grader names what a student's code reached by it (anatomy_grading.reach,
anatomy_grading.blocks; instructor/README.md). Sent to the grader's child as source (connection.SHIPPED).

Python 3.11 added `code.co_qualname`. On 3.10 the name is found where the code was defined: every class
and function of the module loaded from the code's file, walked once per file, maps its code objects to
their `__qualname__`; code compiled at run time is found the same way in the globals it runs with
(the namespace its source was executed in), when the caller has them; code nested in a function keeps
its `co_name`, as before 3.11.
"""
from __future__ import annotations

import functools
import sys
import types


def qualname(code: types.CodeType, namespace: dict | None = None) -> str:
    """`code.co_qualname` where Python has it; else the name of the function or method it belongs to,
    looked up in the modules loaded from its file, then in `namespace` (the globals it runs with)."""
    if not isinstance(code, types.CodeType):
        raise TypeError(f"qualname: code must be a code object, got {type(code).__name__}")
    found = getattr(code, "co_qualname", None) or names_in_file(code.co_filename).get(code)
    if found is None and namespace is not None:
        found = names_in_namespace(namespace, code.co_filename).get(code)
    return found or code.co_name


def names_in_namespace(namespace: dict, filename: str) -> dict[types.CodeType, str]:
    """{code object: qualified name} of what `namespace` holds that was compiled from `filename`: the
    classes executed there have no module file to match, so every class in it is looked into."""
    names: dict[types.CodeType, str] = {}
    collect(namespace, names, filename, set(), any_class=True)
    return names


@functools.lru_cache(maxsize=None)
def names_in_file(filename: str) -> dict[types.CodeType, str]:
    """{code object: qualified name} of the functions, methods and classes' methods of the modules
    loaded from `filename` (empty when none is loaded)."""
    names: dict[types.CodeType, str] = {}
    for module in list(sys.modules.values()):
        if getattr(module, "__file__", None) == filename:
            collect(vars(module), names, filename, set())
    return names


def collect(namespace: dict, names: dict[types.CodeType, str], filename: str, seen: set[int], any_class: bool = False) -> None:
    for value in list(namespace.values()):
        if id(value) in seen:
            continue
        seen.add(id(value))
        # no attribute of other objects is read: a library's lazy attributes import modules when read
        function = value.__func__ if isinstance(value, (staticmethod, classmethod)) else value
        if isinstance(function, property):
            for accessor in (function.fget, function.fset, function.fdel):
                if isinstance(accessor, types.FunctionType) and accessor.__code__.co_filename == filename:
                    names.setdefault(accessor.__code__, accessor.__qualname__)
        elif isinstance(function, types.FunctionType) and function.__code__.co_filename == filename:
            names.setdefault(function.__code__, function.__qualname__)
        elif isinstance(value, type) and (any_class or getattr(value, "__module__", None) in sys.modules and getattr(
                sys.modules[value.__module__], "__file__", None) == filename):
            collect(dict(vars(value)), names, filename, seen, any_class)
