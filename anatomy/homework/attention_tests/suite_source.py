"""What the check cell of homework 3 (notebook 19_homework_attention_tests) gives its review (review.py) to read, as
the grader's static review reads the notebook: the tests' source and their helpers' (`sources`), and what the tests'
module binds to modules and to other modules' functions (`modules_of`, set for one check by `knowing_modules`).
"""
from __future__ import annotations

import contextvars
import functools
import sys
import types
from typing import Any, Callable, Iterable

from anatomy.homework.attention_tests import allowed, review, state


def modules_of(tests: Iterable[Any]) -> dict[str, str]:
    """{name: what it names} for each name the tests' modules bind to a module or to a function or class of one
    (the check cell: their __globals__): `Path` names pathlib, `load` torch.load; the student's own are not here."""
    found = {}
    for test in tests:
        scope = getattr(test, "__globals__", {})
        for name, value in scope.items():
            if isinstance(value, types.ModuleType):
                found[name] = value.__name__
            elif callable(value) and isinstance(getattr(value, "__module__", None), str) \
                    and value.__module__ != scope.get("__name__") and hasattr(value, "__name__"):
                found[name] = exported(value)
    return found


def knowing_modules(check: Callable) -> Callable:
    """`check(tests, ...)` whose review (forbidden) knows what the tests' module binds to modules."""
    @functools.wraps(check)
    def run(tests: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            tests = list(tests)
        except TypeError:  # not a list of tests: the check says so
            return check(tests, *args, **kwargs)
        context = contextvars.copy_context()  # the modules are known inside this call only
        context.run(review.KNOWN.set, modules_of(tests))
        return context.run(check, tests, *args, **kwargs)
    return run


def exported(value: Any) -> str:
    """The name an allowed module gives `value` (torch.testing.assert_close, defined in a private module), else
    where it is defined (pathlib.Path, torch.serialization.save)."""
    for module in allowed.ALLOWED:  # and defined in its package (typing.Optional is also torch.nn.functional's)
        if getattr(sys.modules.get(module), value.__name__, None) is value \
                and str(getattr(value, "__module__", "")).split(".")[0] == module.split(".")[0]:
            return f"{module}.{value.__name__}"
    return f"{value.__module__}.{getattr(value, '__qualname__', value.__name__)}"


def sources(named: dict[str, Any]) -> str:
    """The local tests' source and their helpers' (the functions and classes they read, as the grader reviews
    them), for review.forbidden (the grader's proxies: "", its static review did that)."""
    import inspect
    import textwrap
    functions = list(named.values())
    for test in named.values():  # and a closure's maker (make_test.<locals>.test_x), whose code made what it holds
        outer = getattr(test, "__qualname__", "").split(".<locals>")[0]
        functions += [made] if "<locals>" in getattr(test, "__qualname__", "") and callable(
            made := getattr(test, "__globals__", {}).get(outer)) else []
    for test in list(functions):
        for scope, names in state.read_names(test, set()).values():
            functions += [scope[n] for n in sorted(names) if isinstance(scope[n], (types.FunctionType, type))
                          and getattr(scope[n], "__module__", None) == scope.get("__name__")]
    found = []
    for function in dict.fromkeys(functions):
        try:
            found.append(textwrap.dedent(inspect.getsource(function)))
        except (OSError, TypeError):  # a proxy, a builtin or a lambda typed at a prompt
            pass
    return "\n\n".join(found)
