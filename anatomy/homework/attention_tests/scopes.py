"""The scopes of a homework-3 test's source, for review.py: which names are local to the functions around a node
(a test's own `input` is its own; at the top level a builtin's name is the builtin), the dotted chain a node reads,
and the state a function keeps between calls. Standard library only. Taught with: notebook 19_homework_attention_tests.
"""
from __future__ import annotations

import ast
from typing import Iterable

STATE = {"append", "extend", "update", "setdefault", "add", "insert", "pop", "popitem", "clear", "remove"}


def imported_modules(tree: ast.AST) -> dict[str, str]:
    """{name: what it names} for each name an import statement in `tree` binds ("from m import x": m.x)."""
    found = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.asname or a.name.split(".")[0]: a.name if a.asname else a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            found |= {a.asname or a.name: f"{node.module or ''}.{a.name}" for a in node.names if a.name != "*"}
    return found


COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def function_locals(tree: ast.AST) -> dict[int, frozenset[str]]:
    """{id(node): the names local to the functions around it}, by Python's own scopes: a test's own variable
    called `input` or `id` is its own; at the top level a builtin's name is the builtin (`getattr = getattr`); a
    comprehension's variable is its own alone (`[0 for open in ()]` leaves `open` the builtin), a class body's
    names are no one's local (neither its methods' nor the function around it), and where a class body assigns a name
    it reads it from the class, the globals or the builtins, never from the function around it; a walrus's name is
    nobody's local (it binds a scope further out, and may never run). A function's defaults, annotations
    and decorators, a class's bases and a comprehension's first iterable belong to the scope around them."""
    found: dict[int, frozenset[str]] = {}
    stack: list[tuple[ast.AST, frozenset[str]]] = [(tree, frozenset())]
    while stack:
        scope, outer = stack.pop()
        if isinstance(scope, FUNCTIONS):
            body: list[ast.AST] = [scope.args] + (scope.body if isinstance(scope.body, list) else [scope.body])
        elif isinstance(scope, COMPREHENSIONS):
            body = [part for g in scope.generators for part in (g.target, *g.ifs)] + [g.iter for g in scope.generators[1:]]
            body += [scope.key, scope.value] if isinstance(scope, ast.DictComp) else [scope.elt]
        elif isinstance(scope, ast.ClassDef):
            body = list(scope.body)
        else:
            body = list(ast.iter_child_nodes(scope))
        nodes, nested = [], []
        while body:
            node = body.pop()
            if isinstance(node, FUNCTIONS + COMPREHENSIONS + (ast.ClassDef,)):
                nested.append(node)
                if isinstance(node, FUNCTIONS):
                    arguments = node.args
                    body += arguments.defaults + [d for d in arguments.kw_defaults if d is not None]
                    body += [a.annotation for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs
                             + [arguments.vararg, arguments.kwarg] if a is not None and a.annotation is not None]
                    body += getattr(node, "decorator_list", []) + ([node.returns] if getattr(node, "returns", None) else [])
                elif isinstance(node, ast.ClassDef):
                    body += node.bases + [k.value for k in node.keywords] + node.decorator_list
                else:
                    body.append(node.generators[0].iter)
            elif isinstance(node, ast.arguments):
                nodes += [a for a in node.posonlyargs + node.args + node.kwonlyargs + [node.vararg, node.kwarg] if a]
            else:
                nodes.append(node)
                body += list(ast.iter_child_nodes(node))
        walrus = {id(n.target) for n in nodes if isinstance(n, ast.NamedExpr)}  # binds the scope around: never a local
        stored = bound_here(nodes, nested, walrus)
        own = outer
        if isinstance(scope, FUNCTIONS + COMPREHENSIONS):  # the top level's names are no local
            own = outer | stored | {n.arg for n in nodes if isinstance(n, ast.arg)}
        elif isinstance(scope, ast.ClassDef):  # a name the class body assigns is read there from the class, the
            own = outer - stored - {n.id for n in nodes if isinstance(n, ast.Name) and id(n) in walrus}  # globals, builtins
        found.update((id(n), own) for n in nodes + nested)  # a def, lambda or class: the names around it
        stack += [(f, outer if isinstance(scope, ast.ClassDef) else own) for f in nested]
    return found


def bound_here(nodes: list[ast.AST], nested: list[ast.AST], walrus: set[int]) -> set[str]:
    """Every name a scope binds, in each of Python's ways: assigned or deleted (`x = `, `for x`, `with ... as x`,
    `del x`), caught (`except E as x`), imported, or defined (`def x`, `class x`); a walrus's name aside."""
    found = {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)) and id(n) not in walrus}
    found |= {n.name for n in nodes if isinstance(n, ast.ExceptHandler) and n.name}
    found |= {(a.asname or a.name).split(".")[0] for n in nodes if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
    return found | {n.name for n in nested if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def dotted(node: ast.AST) -> str | None:  # "torch.utils.benchmark" for a chain of names alone, else None
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) else None


def root_of(node: ast.AST) -> str | None:  # the name a chain starts from (torch.Tensor.add -> "torch")
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def kept(function: ast.FunctionDef | ast.AsyncFunctionDef, imported: Iterable[str] = frozenset(),
         around: Iterable[str] = frozenset()) -> list[str]:
    """What `function` keeps between calls: a mutable default, or a container it changes but did not create
    (SEEN.append(out), FIRST[key] = out); a method of an `imported` module or its class (torch.add) is none, nor a
    container local to a function `around` it (a hook filling the list its own test made: made anew each run)."""
    own = set(around) | {n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
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
