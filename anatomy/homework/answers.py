"""Which of a notebook's top-level statements are a question's answer code (homeworks 08, 10 and 19): those that
define or change its symbols and, transitively, the globals they read, by Python's own scopes (symtable), so a
test's local `m` is not a top-level `for m in hw.MUTANTS`; history.py says which still count. The grader's static
review (anatomy_grading/static.py) loads this file by path, the check cell imports it: standard library only."""
from __future__ import annotations

import ast
import symtable
from typing import Callable, Iterable

UNSCOPED = ("module", "class")  # a class body reads a name it binds from the globals until it binds it: all count
DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)  # code that runs later, or apart
MUTATING = {"append", "extend", "insert", "update", "setdefault", "add", "remove", "discard", "pop", "popitem", "clear",
            "sort", "reverse"}  # a container's methods that change it in place


def normalized(source: str) -> str:
    return "\n".join(line.rstrip() for line in source.strip().splitlines())


def parsed(source: str) -> ast.Module | None:  # None where CPython cannot compile it either (syntax, nesting)
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def defined(statement: ast.AST) -> set[str]:
    """The module-level names a top-level statement binds (not its functions' locals); no recursion."""
    names, stack = set(), [statement]
    while stack:
        node = stack.pop()
        if isinstance(node, DEFS):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.Name):
            names |= {node.id} if isinstance(node.ctx, ast.Store) else set()
        elif not isinstance(node, ast.Lambda):
            stack += [c for c in ast.iter_child_nodes(node) if not isinstance(c, (ast.Lambda, ast.expr_context))]
    return names


def changed(statement: ast.AST) -> set[str]:
    """The names whose object a top-level statement changes in place (`H.y = open`, `L[0] = f`, `del D[k]`,
    `q1_tests.append(test_x)`, a def decorated `@q1_tests.append`): it is part of their definition. Only what runs
    now (`run_now`); not a call that changes what it is given (`f(L)`) or a global inside the function it calls."""
    names: set[str | None] = set()
    for node in run_now(statement):
        if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(root_name(node.value))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATING:
            names.add(root_name(node.func.value))
        elif isinstance(node, DEFS):  # `@q1_tests.append` calls it with the function
            names |= {root_name(d.value) for d in node.decorator_list
                      if isinstance(d, ast.Attribute) and d.attr in MUTATING}
    return names - {None}


def run_now(statement: ast.AST) -> list[ast.AST]:
    """The nodes of a statement that run when it runs: not the bodies of its functions, lambdas and classes, but
    their decorators and defaults."""
    found, stack = [], [statement]
    while stack:
        node = stack.pop()
        found.append(node)
        stack += evaluated(node) if isinstance(node, DEFS) else []
        stack += [] if isinstance(node, SCOPES) else list(ast.iter_child_nodes(node))
    return found


def evaluated(definition: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> list[ast.expr]:
    """What a def or class statement evaluates where it stands: its decorators and its defaults."""
    defaults = [] if isinstance(definition, ast.ClassDef) else definition.args.defaults + definition.args.kw_defaults
    return definition.decorator_list + [d for d in defaults if d]  # None: a keyword with no default


def root_name(node: ast.AST | None) -> str | None:  # `L` of `L[0].x`
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def names(node: ast.AST) -> set[str]:  # every name in a node
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def reads(statement: ast.AST) -> set[str]:
    """The globals a top-level statement reads, by Python's scopes (symtable): the names read at the top level or in
    a class body (not a loop's or a `with`'s variable the statement binds before reading it), and in a function
    only what is global there (not its locals, not its enclosing function's). Every name in it where symtable
    cannot read it."""
    try:
        table = symtable.symtable(ast.unparse(statement), "<cell>", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return names(statement)
    found, tables = set(), [table]
    while tables:
        scope = tables.pop()
        tables += scope.get_children()
        unscoped = str(scope.get_type()) in UNSCOPED  # a str, or on 3.13 a StrEnum whose str() is the same
        found |= {s.get_name() for s in scope.get_symbols() if (s.is_referenced() if unscoped else s.is_global())}
    return found - bound_first(statement)


def bound_first(statement: ast.AST) -> set[str]:
    """The names a top-level statement binds before it reads them: a `for` loop's and a `with`'s variables (unless
    the loop's iterable or the `with`'s expression reads them), in what runs now (`run_now`)."""
    found = set()
    for node in run_now(statement):
        pairs = [(node.target, node.iter)] if isinstance(node, (ast.For, ast.AsyncFor)) else [
            (i.optional_vars, i.context_expr) for i in node.items if i.optional_vars] if isinstance(node, (ast.With, ast.AsyncWith)) else []
        found |= {n for bound, read in pairs for n in names(bound) - names(read)}
    return found


def answer_code(statements: list[tuple[int, ast.stmt]], symbols: set[str], follow: Callable[[ast.AST], Iterable[str]] = reads,
                changes: bool = True, modules: Iterable[str] = ()) -> list[tuple[int, ast.stmt]]:
    """The student's top-level statements that define (or, with `changes`, change: not the `modules`' names, as in
    `torch.add(...)`) `symbols`, and those defining the names `follow` finds in them (the globals they read),
    transitively: the code a question's answer runs."""
    definers: dict[str, list[int]] = {}
    for k, (_, node) in enumerate(statements):
        for name in defined(node) | (changed(node) - set(modules) if changes else set()):
            definers.setdefault(name, []).append(k)
    chosen, seen, wanted = set(), set(), list(symbols)  # each name and each statement looked at once: linear in the code
    while wanted:
        name = wanted.pop()
        if name in seen:
            continue
        seen.add(name)
        for k in definers.get(name, ()):
            if k not in chosen:
                chosen.add(k)
                wanted += follow(statements[k][1])
    return [statements[k] for k in sorted(chosen)]
