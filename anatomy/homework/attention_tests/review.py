"""What a homework-3 test may not do, read from its source before it runs (the grader's static review applies the
same rules, plan.SUITE, to the notebook's answer cells): look at *which* implementation runs (source, identity,
private or dunder state, timing, call counts, state kept between runs, the homework's module `hw`) or reach
outside the test (files, processes), also through another module (torch.os) or a string naming a private
attribute or (where the source turns strings into attributes or modules: REACH) such a module ("{0._x}".format(obj),
attrgetter("_x"), attrgetter("os"); a bare "time" as an assert's message is a word). Names the code binds
itself are its own (`for time in range(T)`). Modules (torch.add(x, 0) is arithmetic, not a kept container): the
source's imports, the check cell's tests' module (checks.knowing_modules), the grader's notebook (`imported_modules`).
A refusal names (a key of KEYS, its fields), worded by its caller in the student's language: only the standard
library here (the grader's review process has no catalogue). Taught with: notebook 19_homework_attention_tests.
"""
from __future__ import annotations

import ast
import contextvars
import re
from typing import Any, Iterable

DETECT = {"inspect", "dis", "gc", "sys", "time", "timeit", "id", "hash", "vars", "dir", "getattr", "setattr",
          "globals", "locals", "eval", "exec", "compile", "__import__", "importlib", "builtins", "traceback", "mock",
          "unittest", "MagicMock", "patch", "perf_counter", "monotonic", "process_time", "ctypes", "marshal", "pickle"}
OUTSIDE = {"open", "os", "subprocess", "shutil", "pathlib", "Path", "tempfile", "socket", "multiprocessing",
           "threading", "signal", "urllib", "requests", "pty"}
ATTRIBUTES = {"perf_counter": "why_detect", "monotonic": "why_detect", "process_time": "why_detect",  # on any object:
              "getsource": "why_detect", "call_count": "why_detect", "save": "why_side_effects",  # x.eval() is fine,
              "system": "why_side_effects", "popen": "why_side_effects", "write_text": "why_side_effects",  # x.save not
              "write_bytes": "why_side_effects", "unlink": "why_side_effects"}  # (list.remove is fine: os needs an import)
DUNDERS = {"__init__", "__name__"}  # the only __dunder__ attributes a test may use (super().__init__(), f.__name__)
STATE = {"append", "extend", "update", "setdefault", "add", "insert", "pop", "popitem", "clear", "remove"}
MODULES = {"inspect", "dis", "gc", "sys", "time", "timeit", "importlib", "builtins", "traceback", "unittest", "mock", "ctypes",
           "marshal", "pickle", "os", "subprocess", "shutil", "pathlib", "tempfile", "socket", "multiprocessing",
           "threading", "signal", "urllib", "requests", "pty"}  # the modules of DETECT and OUTSIDE
HOMEWORK = ("anatomy.homework", "anatomy_grading")  # the homework's module (`hw`): a test in the grader has none
FIELD = re.compile(r"\{[^{}]*?\.(_\w+)")  # a format field reading a private attribute: "{0._x}", "{0.__closure__}"
REACH = {"getattr", "hasattr", "attrgetter", "methodcaller", "import_module", "__import__", "resolve_name", "find_spec",
         "get_submodule"}  # what turns a string into an attribute or a module: only then is "os" in a string one
KEYS = ("seen_code", "seen_private", "seen_private_string", "seen_module_string", "seen_state", "seen_homework", "seen_syntax")
KNOWN: contextvars.ContextVar[dict[str, str]] = contextvars.ContextVar("modules", default={})  # checks.knowing_modules


def imported_modules(tree: ast.AST) -> dict[str, str]:
    """{name: module} for each name an import statement in `tree` binds ("from m import x" binds x to m.x)."""
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.asname or a.name.split(".")[0]: a.name if a.asname else a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            found |= {a.asname or a.name: f"{node.module or ''}.{a.name}" for a in node.names}
    return found


def private_path(text: str, modules: bool = True) -> str | None:
    """The private name, or module of MODULES (when `modules`), a string reads as an attribute path ("{0._x}",
    "a.__closure__", "os")."""
    names = FIELD.findall(text)
    if not names and re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", text):
        names = [part for part in text.split(".") if (part.startswith("_") and len(part) > 1) or (modules and part in MODULES)]
    return next((name for name in names if name not in DUNDERS), None)


def forbidden(source: str, modules: dict[str, str] | None = None) -> list[tuple[tuple[str, dict[str, Any]], str]]:
    """[((key, fields), "why_detect" or "why_side_effects")] for each forbidden use in `source`; [] when
    clean. `modules`: {name: module} the source's names are bound to outside it (default: what the check
    cell's checks.knowing_modules set). A source that does not parse: [(("seen_syntax", ...), "import_error")]."""
    try:
        tree = ast.parse(source)
    except SyntaxError as error:
        return [(("seen_syntax", {"line": error.lineno, "msg": error.msg}), "import_error")]
    found: list[tuple[tuple[str, dict[str, Any]], str]] = []
    bound = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    bound |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.arguments)
              for a in n.posonlyargs + n.args + n.kwonlyargs + [n.vararg, n.kwarg] if a is not None}
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}  # a called name counts, bound or not
    bound |= {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    outside = {n: m for n, m in (KNOWN.get() if modules is None else modules).items() if n not in bound}
    imported = imported_modules(tree) | outside  # torch, F, nn: torch.add(x, 1) is arithmetic, not a kept container
    homework = {n for n, m in imported.items() if m.startswith(HOMEWORK)} | ({"hw"} - set(imported) - bound)
    inside = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
              for n in ast.walk(f)}  # hw is refused in tests and their helpers (a notebook cell may practise with it)

    reaches = any(isinstance(n, ast.Name) and n.id in REACH or isinstance(n, ast.Attribute) and n.attr in REACH
                  for n in ast.walk(tree))  # else "time" is just a word (an assert's message)

    def note(name: str, code: str, node: ast.AST) -> None:
        parts, what = name.split("."), ("seen_code", {"code": code})  # torch.os: its first part naming a module
        root = next((part for part in parts if part in MODULES), parts[0])
        if root in DETECT or name in DETECT or (name.startswith(HOMEWORK) and id(node) in inside):
            found.append((what, "why_detect"))
        elif root in OUTSIDE or name in OUTSIDE:
            found.append((what, "why_side_effects"))

    for node in ast.walk(tree):
        if isinstance(node, (ast.Global, ast.Nonlocal)):  # state kept between runs: a call counter
            found.append((("seen_code", {"code": f"`{type(node).__name__.lower()} {', '.join(node.names)}`"}),
                          "why_detect"))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                note(alias.name, f"`import {alias.name}`", node)
        elif isinstance(node, ast.ImportFrom):
            note(node.module or "", f"`from {node.module} import ...`", node)
            for alias in node.names:
                note(alias.name, f"`from {node.module} import {alias.name}`", node)
        elif isinstance(node, ast.Name) and node.id in homework and isinstance(node.ctx, ast.Load) and id(node) in inside:
            found.append((("seen_homework", {"name": node.id}), "why_detect"))
        elif isinstance(node, ast.Name) and (node.id not in bound or id(node) in called):  # id(x), open(...)
            note(node.id, f"`{node.id}`", node)
        elif isinstance(node, ast.Attribute):
            if node.attr in MODULES and root_of(node) in imported:  # torch.os, np.sys: a module bound to a module's name
                note(node.attr, f"`{ast.unparse(node)[:60]}`", node)
            elif node.attr.startswith("_") and node.attr not in DUNDERS:
                found.append((("seen_private", {"attr": node.attr}), "why_detect"))
            elif node.attr in ATTRIBUTES:
                found.append((("seen_code", {"code": f"`.{node.attr}`"}), ATTRIBUTES[node.attr]))
            elif isinstance(node.ctx, (ast.Store, ast.Del)) and root_of(node) in imported:  # torch.seen = []
                found.append((("seen_state", {"code": ast.unparse(node)[:60]}), "why_detect"))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and (name := private_path(node.value, reaches)):
            found.append((("seen_module_string" if name in MODULES else "seen_private_string",
                           {"attr": name, "text": repr(node.value[:40])}), "why_detect"))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found += [(("seen_state", {"code": what}), "why_detect") for what in kept(node, imported)]
    return list({(key, tuple(fields.items()), why): ((key, fields), why) for (key, fields), why in found}.values())


def root_of(node: ast.AST) -> str | None:  # the name a chain starts from (torch.Tensor.add -> "torch")
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def kept(function: ast.FunctionDef | ast.AsyncFunctionDef, imported: Iterable[str] = frozenset()) -> list[str]:
    """What `function` keeps between calls: a mutable default, or a container it changes but did not create
    (SEEN.append(out), FIRST[key] = out); a method of an `imported` module or its class (torch.add) is none."""
    own = {n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    own |= {a.arg for a in function.args.posonlyargs + function.args.args + function.args.kwonlyargs}
    found = [f"{function.name}(... = {ast.unparse(d)})" for d in function.args.defaults + function.args.kw_defaults
             if isinstance(d, (ast.List, ast.Dict, ast.Set, ast.Call, ast.ListComp, ast.DictComp, ast.SetComp))]
    for node in ast.walk(function):
        target = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in STATE:
            target = None if on_module(node.func.value, set(imported)) else node.func.value
        elif isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            target = node.value
        if (name := root_of(target)) is not None and name not in own and name != "self":
            found.append(ast.unparse(node)[:60])
    return found


def on_module(receiver: ast.AST, modules: set[str]) -> bool:  # torch, torch.Tensor, nn.Module: not containers
    while isinstance(receiver, ast.Attribute) and receiver.attr[:1].isupper():
        receiver = receiver.value
    return isinstance(receiver, ast.Name) and receiver.id in modules
