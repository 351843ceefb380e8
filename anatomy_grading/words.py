"""The words of an answer's code that static.py's rules judge: every name (and string constant, for
homeworks 1 and 2's substring rules), whole names only for homework 3, and a homework's own rules
module (anatomy.homework.attention_tests.review) loaded by path, without torch.
"""
from __future__ import annotations

import ast
import functools
from pathlib import Path
from typing import Callable


def words(tree: ast.AST, strings: bool = True) -> list[str]:
    """Every identifier, attribute, imported name and (unless not `strings`) string constant of the code."""
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            found.append(node.id)
        elif isinstance(node, ast.Attribute):
            found.append(node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            found.append(node.name)
        elif isinstance(node, ast.alias):
            found += node.name.split(".") + ([node.asname] if node.asname else [])
        elif isinstance(node, ast.ImportFrom) and node.module:
            found += node.module.split(".")
        elif strings and isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.append(node.value)
    return found


@functools.lru_cache(maxsize=None)
def rules_module(dotted: str):
    """A homework's own rules (e.g. anatomy.homework.attention_tests.review), loaded from its file once
    per process: it may import only the standard library (the review's process has no torch)."""
    import importlib.util
    path = Path(__file__).resolve().parent.parent.joinpath(*dotted.split(".")).with_suffix(".py")
    spec = importlib.util.spec_from_file_location(f"_rules_{dotted.replace('.', '_')}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module



def reviewer(dotted: str, trees: list[ast.AST], own: set[str] = frozenset()) -> Callable[[str], list[tuple[tuple[str, dict], str]]]:
    """A homework's own review (its rules' forbidden), told what the notebook's imports bind to modules and which
    names the student's own cells define (`own`)."""
    rules = rules_module(dotted)  # so a lone test's torch.add(x, 0) is arithmetic and `hw` is the homework
    return functools.partial(rules.forbidden, modules={n: m for t in trees for n, m in rules.imported_modules(t).items()},
                             own=own)


def hits_of(node: ast.AST, rules: dict, extra) -> list[str]:
    """The forbidden uses in one statement: a rule's words as substrings of any word (homeworks 1, 2),
    or, with rules["names"], as whole names only (never string constants), plus what `extra(source)` refuses,
    worded with rules["seen"] (plan.question_rules: the submission's language)."""
    if rules.get("names"):
        banned = {f.lower() for f in rules["forbidden"]}
        found = sorted({w for w in words(node, strings=False) for part in w.split(".") if part.lower() in banned})
    else:
        found = sorted({w for w in words(node) for f in rules["forbidden"] if f.lower() in w.lower()})
    refused = extra(ast.unparse(node)) if extra else []
    return found + [rules["seen"][key].format(**fields) for (key, fields), _ in refused]
