"""What a homework-3 test may use (review.py reads its source against this): the modules of ALLOWED (of `copy` only
NAMES), of `torch` itself its tensor functions and dtypes (torch_names, read off torch's own stubs) and TORCH, and
Python's BUILTINS. A submodule counts as a module of its own, allowed only where ALLOWED names it: whether `torch.utils`,
`torch.os` or `F.grad` is a module is read off the installed package (its folder, and the imports of its source)
without importing it, so a torch upgrade's new submodules and functions are judged with no list to keep; where a
source cannot be read, nothing inside it is allowed. Standard library only (the grader's review process has no
torch). Taught with: notebook 19_homework_attention_tests.
"""
from __future__ import annotations

import ast
import functools
import importlib.util
import re
import sys
from pathlib import Path

ALLOWED = ("torch", "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.testing", "torch.linalg", "torch.special",
           "torch.fft", "math", "itertools", "collections", "collections.abc", "copy", "__future__")
NAMES = {"copy": ("copy", "deepcopy")}  # what a test may use of these modules (copy.dispatch_table hands out type)
TORCH = ("Tensor", "Size", "dtype", "device", "finfo", "iinfo", "no_grad", "enable_grad", "inference_mode",
         "set_grad_enabled", "manual_seed", "get_default_dtype", "set_default_dtype", "is_tensor", "pi", "e", "inf",
         "nan", "newaxis")  # torch's own names beside its tensor functions and dtypes (torch_names)
BUILTINS = frozenset({
    "abs", "all", "any", "bool", "bytes", "callable", "chr", "classmethod", "complex", "dict", "divmod", "enumerate",
    "filter", "float", "format", "frozenset", "int", "isinstance", "issubclass", "iter", "len", "list", "map", "max",
    "min", "next", "object", "ord", "pow", "print", "property", "range", "repr", "reversed", "round", "set", "slice",
    "sorted", "staticmethod", "str", "sum", "super", "tuple", "zip", "True", "False", "None", "Ellipsis",
    "NotImplemented", "hex", "oct", "bin", "ascii", "bytearray"})
ERROR = re.compile(r"(?!Base)(?=[A-Z])\w*(Error|Exception|Warning)|StopIteration")  # what a test may raise or catch (not
# BaseException: a test that catches everything would catch the end of its own time too)


def builtin_refused(name: str) -> bool:
    """A name of Python's builtins that a test may not use: getattr, open, id, hash, type, vars, eval, input, ..."""
    return hasattr(sys.modules["builtins"], name) and name not in BUILTINS and not ERROR.fullmatch(name)


@functools.lru_cache(maxsize=None)
def origin_of(root: str) -> str | None:
    """Where the top-level module `root` comes from ("built-in", a file), found without importing it; None if absent."""
    try:
        spec = importlib.util.find_spec(root)  # a top-level name: finds, imports nothing
    except (ImportError, ValueError):
        return None
    return None if spec is None else spec.origin


@functools.lru_cache(maxsize=None)
def source_of(dotted: str) -> Path | None:
    """The installed source file of module `dotted` (a package's __init__.py), found without importing it."""
    root, *parts = dotted.split(".")
    origin = origin_of(root)
    if origin in (None, "built-in", "frozen"):
        return None
    path = Path(origin)
    for part in parts:  # down to the module's own file: a package's __init__.py, or part.py
        folder = path.parent / part
        path = folder / "__init__.py" if (folder / "__init__.py").is_file() else path.parent / f"{part}.py"
    return path if path.is_file() and path.suffix == ".py" else None


def compiled(dotted: str) -> bool:
    """A top-level module of compiled code alone, built in (sys) or an extension (math, itertools on most builds)."""
    origin = origin_of(dotted.split(".")[0])  # built in (its submodules too), or an extension of its own
    return origin == "built-in" or ("." not in dotted and (origin or "").endswith((".so", ".pyd")))


@functools.lru_cache(maxsize=None)
def submodules(dotted: str) -> frozenset[str] | None:
    """The names in module `dotted`'s namespace that are modules: its package's files and folders, and what its
    source binds with `import` (torch's `import os`), read from the installed files without importing anything;
    None where its source cannot be read (then nothing inside it is allowed: the review fails closed)."""
    path = source_of(dotted)
    if path is None:  # not installed, or a module without Python source (math, itertools: then no submodule)
        return frozenset() if compiled(dotted) else None
    found: set[str] = set()
    if path.name == "__init__.py":
        for entry in path.parent.iterdir():
            if (entry / "__init__.py").is_file() or entry.suffix in (".py", ".so", ".pyd"):
                found.add(entry.name.split(".")[0])
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return None
    package = dotted if path.name == "__init__.py" else dotted.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.asname or alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):  # `from torch.nn import grad`: F.grad is the module torch.nn.grad
            base = node.module or "" if not node.level else ".".join(
                [*package.split(".")[:len(package.split(".")) - node.level + 1], *([node.module] if node.module else [])])
            found |= {alias.asname or alias.name for alias in node.names
                      if alias.name != "*" and source_of(f"{base}.{alias.name}") is not None}
    return frozenset(found)


@functools.lru_cache(maxsize=None)
def torch_names() -> frozenset[str]:
    """What `torch.X` may name: torch's tensor functions (its own stub of them, _C/_VariableFunctions.pyi, and
    torch/functional.py's __all__), its dtypes (_C/__init__.pyi) and TORCH; read off the installed files, so
    torch.save, torch.compile, torch.CompilationUnit and whatever a new version adds are not among them."""
    names = set(TORCH)
    init = source_of("torch")
    if init is None:
        return frozenset(names)
    for stub, read in ((init.parent / "_C" / "_VariableFunctions.pyi", "defs"), (init.parent / "_C" / "__init__.pyi", "dtypes"),
                       (init.parent / "functional.py", "all")):
        try:
            tree = ast.parse(stub.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
            continue
        for node in tree.body:
            if read == "defs" and isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                names.add(node.name)
            elif read == "dtypes" and isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
                    and isinstance(node.annotation, ast.Name) and node.annotation.id == "dtype":
                names.add(node.target.id)
            elif read == "all" and isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets):
                names |= {n for n in ast.literal_eval(node.value) if isinstance(n, str)}
    return frozenset(names)


def refused_module(dotted: str) -> str | None:
    """What `dotted` (a module, or a name inside one: "torch.utils.benchmark.Timer", "pathlib.Path") reaches that is
    not allowed: a module outside ALLOWED, or a name of torch's own that is not one of torch_names ("torch.save");
    else None. Past its first attribute that is not a module, the path is not judged (a value's attributes)."""
    parts = dotted.split(".")
    prefix = next((".".join(parts[:n]) for n in range(len(parts), 0, -1) if ".".join(parts[:n]) in ALLOWED), None)
    if prefix is None:
        return ".".join(parts[:1])
    for part in parts[prefix.count(".") + 1:]:
        inside = submodules(prefix)
        if inside is None:  # its source cannot be read: nothing inside it is allowed
            return f"{prefix}.{part}"
        if part not in inside:
            if prefix in NAMES and part not in NAMES[prefix]:
                return f"{prefix}.{part}"
            return f"torch.{part}" if prefix == "torch" and part not in torch_names() else None
        prefix = f"{prefix}.{part}"
        if prefix not in ALLOWED:
            return prefix
    return None


def is_module(dotted: str) -> bool:
    """`dotted` names a module (allowed or not), not a function, class or value inside one."""
    parent, _, last = dotted.rpartition(".")
    return dotted in ALLOWED or not parent or last in (submodules(parent) or ())


def foreign_module(name: str) -> bool:
    """A module of the standard library outside ALLOWED (a string "os", "sys" read as a module)."""
    return name in sys.stdlib_module_names and name not in ALLOWED
