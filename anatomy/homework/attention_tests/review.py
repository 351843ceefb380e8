"""What a homework-3 test may not do, read from its source before it runs (the trusted grader reads
the notebook as JSON and checks the test cells the same way): look at *which* implementation runs
(its source, identity, private state, timing, call counts) or reach outside the test (files,
processes). Taught with: notebook 19_homework_attention_tests.
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
              "write_bytes": "why_side_effects", "unlink": "why_side_effects", "remove": "why_side_effects"}


def forbidden(source: str) -> list[tuple[str, str]]:
    """[(what, "why_detect" or "why_side_effects")] for each forbidden use in `source`; [] when clean.
    A source that does not parse gives [("a syntax error ...", "import_error")]."""
    try:
        tree = ast.parse(source)
    except SyntaxError as error:
        return [(f"a syntax error (line {error.lineno}: {error.msg})", "import_error")]
    found: list[tuple[str, str]] = []

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
        elif isinstance(node, ast.Name):
            note(node.id, f"`{node.id}`")
        elif isinstance(node, ast.Attribute):
            if node.attr.startswith("_"):
                found.append((f"the private attribute `.{node.attr}`", "why_detect"))
            elif node.attr in ATTRIBUTES:
                found.append((f"`.{node.attr}`", ATTRIBUTES[node.attr]))
    return list(dict.fromkeys(found))
