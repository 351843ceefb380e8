"""What the check cell of homework 3 (notebook 19_homework_attention_tests) gives its review (review.py) to read, as
the grader's static review reads the notebook: the tests' source and their helpers' (`sources`), the kernel's
top-level statements that define them and the globals they read, but the template's cells (`notebook_source`, chosen
as the grader chooses a question's answer code: anatomy.homework.answers.answer_code), and what the tests' module binds
to modules and to other modules' functions (`modules_of`) or the kernel's imports bound (`imports_run`), set for
one check by `knowing_modules`.
"""
from __future__ import annotations

import ast
import contextvars
import functools
import hashlib
import re
import sys
import types
from typing import Any, Callable, Iterable

from anatomy.homework.attention_tests import allowed, review, state, template
from anatomy.homework.answers import answer_code, normalized, parsed
from anatomy.homework.history import in_force

NOTEBOOK: contextvars.ContextVar[str] = contextvars.ContextVar("notebook", default="")  # knowing_modules sets it
CACHE = re.compile(r"_+|_\d+|_i+\d*|_[iod]h|In|Out")  # IPython's names for past inputs and outputs: not the student's


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
        given = tests
        try:
            tests = list(tests)
        except TypeError:  # not a list of tests: the check says so
            return check(tests, *args, **kwargs)
        known, source = kernel_view(given, tests)
        context = contextvars.copy_context()  # the modules and statements are known inside this call only
        context.run(review.KNOWN.set, known)
        context.run(NOTEBOOK.set, source)
        return context.run(check, tests, *args, **kwargs)
    return run


def kernel_view(given: Any, tests: list[Any]) -> tuple[dict[str, str], str]:
    """What the check cell's review knows of the kernel for the tests' list `given`: {name: module} its imports and
    the tests' module bound, and the answer's statements still in force there (notebook_source)."""
    scope = namespace(tests)
    everything, mine = history(scope)
    modules = imports_run(everything)
    return modules | modules_of(tests), notebook_source(mine, scope, [given, *tests], modules)


def namespace(tests: list[Any]) -> dict[str, Any]:
    """The kernel's namespace: the tests' module's, or IPython's (a list of functools.partial has no module)."""
    for test in tests:
        if isinstance(scope := getattr(test, "__globals__", None), dict) and isinstance(scope.get("In"), list):
            return scope
    shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
    return getattr(shell, "user_ns", {})


def history(scope: dict[str, Any]) -> tuple[list[ast.stmt], list[ast.stmt]]:
    """The top-level statements of every cell the kernel (`scope`, namespace()) ran (IPython's `In`), in order, and
    of those that are not one of the template's cells (template.CELLS: the grader skips a template cell left
    unchanged); none outside IPython."""
    cells = scope.get("In")
    cells = [unwrapped(cell) for cell in (cells if isinstance(cells, list) else []) if isinstance(cell, str)]
    mine = [hashlib.sha256(normalized(cell).encode()).hexdigest() not in template.CELLS for cell in cells]
    trees = [(parsed(cell), own) for cell, own in zip(cells, mine)]
    everything = [(statement, own) for tree, own in trees if tree is not None for statement in tree.body]
    return [s for s, _ in everything], [s for s, own in everything if own]


def unwrapped(cell: str) -> str:
    """A cell IPython keeps as `get_ipython().run_cell_magic('time', '', body)` (`%%time`): its body, which the grader
    reviews (its `%%` line aside); any other cell as it is."""
    tree = parsed(cell)
    call = getattr(tree.body[0], "value", None) if tree is not None and len(tree.body) == 1 else None
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "run_cell_magic" \
            and len(call.args) == 3 and isinstance(call.args[2], ast.Constant) and isinstance(call.args[2].value, str):
        return call.args[2].value
    return cell


def imports_run(statements: list[ast.stmt]) -> dict[str, str]:
    """{name: module} for each name the kernel's cells imported (the grader reads the notebook's imports so: `F` is
    torch.nn.functional even where a later `F = 32` rebound it, since the grader cannot tell which came last)."""
    return review.imported_modules(ast.Module(body=statements, type_ignores=[]))


def notebook_source(statements: list[ast.stmt], scope: dict[str, Any], objects: list[Any], modules: Iterable[str] = ()) -> str:
    """Of the kernel's top-level statements still in force (history.in_force: a statement rebound later before
    anything read it is not), those that define or change the names bound to `objects` (the tests' list, its
    tests) and, transitively, the globals they read: what the grader reviews as the answer; `modules`: the names
    the kernel's imports bound (a call on them changes nothing of the student's)."""
    named = [{name for name, value in scope.items() if value is o and not CACHE.fullmatch(name)} for o in objects]
    symbols = named[0] or set().union(*named[1:])  # the list's name (q1_tests) as the grader's, not a loop's `t`
    chosen = answer_code([(k, statements[k]) for k in in_force(statements)], symbols, modules=modules)
    return "\n\n".join(ast.unparse(statement) for _, statement in chosen)


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
    own = {id(getattr(f, "__globals__", None)) for f in functions}  # the tests' module: never a library's (pathlib)
    for test in list(functions):
        for key, (scope, names) in state.read_names(test, set()).items():
            functions += [scope[n] for n in sorted(names) if key in own and isinstance(
                scope[n], (types.FunctionType, type)) and getattr(scope[n], "__module__", None) == scope.get("__name__")]
    found = [NOTEBOOK.get()] if NOTEBOOK.get() else []  # the kernel's statements (knowing_modules), then each function's
    for function in dict.fromkeys(functions):
        try:
            found.append(textwrap.dedent(inspect.getsource(function)))
        except (OSError, TypeError):  # a proxy, a builtin or a lambda typed at a prompt
            pass
    return "\n\n".join(found)
