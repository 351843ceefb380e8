"""Which top-level statements of a kernel's history still count, in the order they ran (homework 3's check cell,
notebook 19): a statement that a later one replaces before anything read it does not (`SIZE = len(...)` then
`SIZE = 4`); the trusted grader reads every statement of the saved notebook instead. The check cell imports
it (suite_source.py).
"""
from __future__ import annotations

import ast

from anatomy.homework.answers import DEFS, changed, defined, evaluated, reads


def rebinds(statement: ast.stmt) -> set[str]:
    """What a statement binds afresh without reading it first, so that it replaces what ran before: a def, a class,
    an import, `SIZE = 4`, `Box.n = 2` (not `SIZES += [3]`, a loop's variable or `Box.n = Box.n + 1`)."""
    if isinstance(statement, DEFS):
        return {statement.name}
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return defined(statement)
    if not isinstance(statement, ast.Assign):
        return set()
    read = reads(ast.Expr(statement.value))
    bound = defined(statement) | {ast.unparse(t) for t in statement.targets if isinstance(t, (ast.Attribute, ast.Subscript))}
    return {key for key in bound if root(key) not in read}


def root(key: str) -> str:  # "Box" of "Box.n" or "L[0]"
    return key.split(".")[0].split("[")[0]


def in_force(statements: list[ast.stmt]) -> list[int]:
    """The statements of a kernel's history (in the order they ran) that still count: all but those whose every
    name and target a later statement rebinds before anything reads them (`SIZE = len(...)` then `SIZE = 4`).
    A statement that reads a name, or changes it in place, keeps what ran before it."""
    rebound, kept = set(), []
    for k in reversed(range(len(statements))):
        statement = statements[k]
        fresh = rebinds(statement)
        touched = defined(statement) | fresh | (changed(statement) - {root(key) for key in fresh})  # Box.n = 2: Box.n
        if touched and touched <= rebound:
            continue  # replaced later, before anything read it
        kept.append(k)
        read = read_now(statement, statements[:k]) | changed(statement)
        rebound = {key for key in rebound if root(key) not in read} | fresh
    return sorted(kept)


def read_now(statement: ast.stmt, before: list[ast.stmt]) -> set[str]:
    """The globals a top-level statement reads when it runs: a def's decorators and defaults only (its body reads
    when called), an assignment's value, anything else whole; and what the functions it calls read, by their
    latest definition in `before` (`X = make()`, where make reads A, reads A)."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return set().union(*(reads(ast.Expr(e)) for e in evaluated(statement)))
    read = reads(ast.Expr(statement.value)) if isinstance(statement, ast.Assign) else reads(statement)
    calls = {n.func.id for n in ast.walk(statement) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    if not calls:  # `q1_tests = [test_x]` names test_x, calls nothing
        return read
    bodies = {node.name: node for node in before if isinstance(node, DEFS)}
    called, seen = [n for n in calls if n in bodies], set()
    while called:  # and what those functions call, once each
        name = called.pop()
        if name not in seen:
            seen.add(name)
            body = reads(bodies[name])
            read |= body
            called += [n for n in body if n in bodies]
    return read
