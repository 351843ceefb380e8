"""What a homework-3 test may not do, read from its source before it runs (the trusted grader's static
review applies these same rules, plan.SUITE, to the answer cells of the notebook read as JSON): look at
*which* implementation runs (its source, identity, private or dunder state, timing, call counts, state
kept from one run to the next) or reach outside the test (files, processes). Only imports, calls,
attributes and names the code does not bind itself count: `for time in range(T)` or a variable named
`signal` is the student's own. Taught with: notebook 19_homework_attention_tests.
"""
from __future__ import annotations

import ast

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


def forbidden(source: str) -> list[tuple[str, str]]:
    """[(what, "why_detect" or "why_side_effects")] for each forbidden use in `source`; [] when clean.
    A source that does not parse gives [("a syntax error ...", "import_error")]."""
    try:
        tree = ast.parse(source)
    except SyntaxError as error:
        return [(f"a syntax error (line {error.lineno}: {error.msg})", "import_error")]
    found: list[tuple[str, str]] = []
    bound = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    bound |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.arguments)
              for a in n.posonlyargs + n.args + n.kwonlyargs + [n.vararg, n.kwarg] if a is not None}
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}  # a called name counts, bound or not
    bound |= {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    imported = {(a.asname or a.name).split(".")[0] for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
                for a in n.names}  # torch, F, nn: torch.add(x, 1) is arithmetic, not a kept container

    def note(name: str, what: str) -> None:
        root = name.split(".")[0]
        if root in DETECT or name in DETECT:
            found.append((what, "why_detect"))
        elif root in OUTSIDE or name in OUTSIDE:
            found.append((what, "why_side_effects"))

    for node in ast.walk(tree):
        if isinstance(node, (ast.Global, ast.Nonlocal)):  # state kept between runs: a call counter
            found.append((f"`{type(node).__name__.lower()} {', '.join(node.names)}`", "why_detect"))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                note(alias.name, f"import {alias.name}")
        elif isinstance(node, ast.ImportFrom):
            note(node.module or "", f"from {node.module} import ...")
            for alias in node.names:
                note(alias.name, f"from {node.module} import {alias.name}")
        elif isinstance(node, ast.Name) and (node.id not in bound or id(node) in called):  # id(x), open(...)
            note(node.id, f"`{node.id}`")
        elif isinstance(node, ast.Attribute):
            if node.attr.startswith("_") and node.attr not in DUNDERS:
                found.append((f"the private attribute `.{node.attr}`", "why_detect"))
            elif node.attr in ATTRIBUTES:
                found.append((f"`.{node.attr}`", ATTRIBUTES[node.attr]))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found += [(f"`{what}` (state kept from one run to the next)", "why_detect") for what in kept(node, imported)]
    return list(dict.fromkeys(found))


def kept(function: ast.FunctionDef | ast.AsyncFunctionDef, imported: set[str] = frozenset()) -> list[str]:
    """What `function` keeps between its calls: a mutable default argument, or a container it did not
    create itself but changes (SEEN.append(out), FIRST[key] = out): record-and-compare across runs.
    A method called straight on an `imported` module (torch.add(x, 1)) is no container."""
    own = {n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    own |= {a.arg for a in function.args.posonlyargs + function.args.args + function.args.kwonlyargs}
    found = [f"{function.name}(... = {ast.unparse(d)})" for d in function.args.defaults + function.args.kw_defaults
             if isinstance(d, (ast.List, ast.Dict, ast.Set, ast.Call, ast.ListComp, ast.DictComp, ast.SetComp))]
    for node in ast.walk(function):
        target = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in STATE:
            receiver = node.func.value
            target = None if isinstance(receiver, ast.Name) and receiver.id in imported else receiver
        elif isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            target = node.value
        while isinstance(target, (ast.Subscript, ast.Attribute)):
            target = target.value
        if isinstance(target, ast.Name) and target.id not in own and target.id != "self":
            found.append(ast.unparse(node)[:60])
    return found
