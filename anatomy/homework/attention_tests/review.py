"""What a homework-3 test may use, read from its source before it runs (the grader's static review applies the
same rules, plan.SUITE, to the notebook's answer cells). An allowlist (allowed.py): the modules of ALLOWED, torch's
tensor functions, Python's BUILTINS, the test's own names and the student's helpers; never GIVEN (the assignment's
`impl`, `grader`). And nothing that tells *which* implementation runs or gets past the allowlist (judges.py: a
module as a value, a private, dunder or frame name, a tensor's way out, `str.format` but on plain literal fields,
`match`), no state kept between runs (scopes.kept), no string naming a private attribute or a module where strings
become attributes (REACH). Names are read by Python's scopes (scopes.function_locals). A top-level import is judged
where its name is used (`hw` may be practised with outside a test). A refusal names (a key of KEYS, its fields),
worded by its caller in the student's language: standard library only (the grader's review process has no catalogue,
no torch). A static review of Python, not a proof: the runs' isolation stands behind it. Taught with: notebook 19.
"""
from __future__ import annotations

import ast
import contextvars
import re
from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path
from typing import Any, Iterable

_spec = spec_from_file_location("_homework3_judges", Path(__file__).with_name("judges.py"))  # by path: the review's
judges = module_from_spec(_spec)  # process imports no package (anatomy would bring torch)
_spec.loader.exec_module(judges)
allowed, scopes = judges.allowed, judges.scopes
ATTRIBUTES, DUNDERS, FIELD = judges.ATTRIBUTES, judges.DUNDERS, judges.FIELD  # what review.forbidden reads of them
imported_modules = scopes.imported_modules  # the grader's reviewer reads the notebook's imports with it

REACH = {"getattr", "hasattr", "attrgetter", "methodcaller", "import_module", "__import__", "resolve_name", "find_spec",
         "get_submodule"}  # what turns a string into an attribute or a module: only then is "os" in a string one
KEYS = ("seen_code", "seen_private", "seen_private_string", "seen_module_string", "seen_state", "seen_homework",
        "seen_syntax", "seen_module", "seen_name", "seen_torch", "seen_module_value", "seen_word")
NAMES = {"homework", "anatomy_grading", "mutants", "mutation", "closure", "_bug", "getpid", "getstate"}  # whole names
# (or a dotted name's parts) that no answer's code may hold: the grading code's, the mutants' and a run's ways to tell
KNOWN: contextvars.ContextVar[dict[str, str]] = contextvars.ContextVar("modules", default={})  # suite_source.knowing_modules
GIVEN = {"impl", "grader", "get_ipython", "display", "In", "Out"}  # what the assignment or IPython binds: never a test's


def private_path(text: str, modules: bool = True) -> str | None:
    """The private name, or a module outside ALLOWED (when `modules`), a string reads as an attribute path
    ("{0._x}", "a.__closure__", "os")."""
    names = FIELD.findall(text)
    if not names and re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", text):
        names = [part for part in text.split(".") if (part.startswith("_") and len(part) > 1)
                 or (modules and allowed.foreign_module(part))]
    return next((name for name in names if name not in DUNDERS), None)


def identifiers(node: ast.AST) -> list[str]:
    """The identifiers one node names: a name, an attribute, a def's or class's name, an import's names and module."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        return [node.attr]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.alias):
        return [node.name] + ([node.asname] if node.asname else [])
    return [node.module] if isinstance(node, ast.ImportFrom) and node.module else []


def forbidden(source: str, modules: dict[str, str] | None = None,
              own: Iterable[str] = ()) -> list[tuple[tuple[str, dict[str, Any]], str]]:
    """[((key, fields), why)] for each use in `source` that review refuses; [] when clean. `modules`: {name: what
    it names} that the source's names are bound to outside it (default: what the check cell's
    suite_source.knowing_modules set); `own`: the names the student's own cells define (GIVEN's, redefined, are
    theirs). A source that does not parse: [(("seen_syntax", ...), "import_error")]."""
    try:
        tree = ast.parse(source)
    except SyntaxError as error:
        return [(("seen_syntax", {"line": error.lineno, "msg": error.msg}), "import_error")]
    found: list[tuple[tuple[str, dict[str, Any]], str]] = []
    imported = dict(KNOWN.get() if modules is None else modules) | scopes.imported_modules(tree)
    given = GIVEN - set(own)
    inside = {id(n) for f in ast.walk(tree) if isinstance(f, scopes.FUNCTIONS + (ast.ClassDef,)) for n in ast.walk(f)
              if n is not f}  # what runs in a test's run: its body, its helpers' bodies
    local = scopes.function_locals(tree)  # a name local where it is read is the code's own, whatever it is called
    based = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}  # what is only read through
    reaches = any(isinstance(n, ast.Name) and n.id in REACH or isinstance(n, ast.Attribute) and n.attr in REACH
                  for n in ast.walk(tree))  # else "time" is just a word (an assert's message)

    def refuse(key: str, why: str, **fields: Any) -> None:
        found.append(((key, fields), why))

    for node in ast.walk(tree):
        if isinstance(node, (ast.Global, ast.Nonlocal)):  # state kept between runs: a call counter
            refuse("seen_code", "why_detect", code=f"`{type(node).__name__.lower()} {', '.join(node.names)}`")
        elif isinstance(node, ast.Match):  # a class pattern reads attributes by keyword, dunders too
            refuse("seen_code", "why_allowed", code="`match`")
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            judges.judge_import(node, id(node) in inside, refuse)
        elif isinstance(node, ast.Name):
            if node.id.startswith("__") and node.id.endswith("__") and node.id not in DUNDERS:
                refuse("seen_private", "why_detect", attr=node.id)  # __builtins__, __loader__, __spec__
            elif isinstance(node.ctx, ast.Load) and node.id not in local.get(id(node), ()):
                judges.judge_name(node.id, id(node) in inside, id(node) in based, imported, given, refuse)
        elif isinstance(node, ast.Attribute):
            judges.judge_attribute(node, id(node) in based, imported, local.get(id(node), frozenset()), refuse)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if node.name.startswith("__") and node.name not in DUNDERS:  # __torch_function__, __reduce_ex__
                refuse("seen_private", "why_detect", attr=node.name)
            for what in scopes.kept(node, imported, local.get(id(node), frozenset())):
                refuse("seen_state", "why_detect", code=what)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and (name := private_path(node.value, reaches)):
            refuse("seen_private_string" if name.startswith("_") else "seen_module_string", "why_detect", attr=name,
                   text=repr(node.value[:40]))
        for word in identifiers(node):  # after the node's own refusals, which say more (`from anatomy.homework import`)
            if any(part.lower() in NAMES for part in word.split(".")):
                refuse("seen_word", "why_rules", code=word)
    return list({(key, tuple(fields.items()), why): ((key, fields), why) for (key, fields), why in found}.values())
