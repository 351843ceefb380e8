"""The judges of review.py, one per kind of node a homework-3 test's source holds: an import, a name it reads, an
attribute. Each refuses (a catalogue key, its fields) what the allowlist (allowed.py) does not allow, or what tells
*which* implementation runs. Standard library only; loaded by path (review.sibling). Taught with: notebook 19.
"""
from __future__ import annotations

import ast
import re
from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path



def sibling(name: str):
    """This folder's module `name`, loaded by path: the review's process imports no package (anatomy brings torch)."""
    spec = spec_from_file_location(f"_homework3_{name}", Path(__file__).with_name(f"{name}.py"))
    module = module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


allowed, scopes = sibling("allowed"), sibling("scopes")
ATTRIBUTES = ("numpy", "storage", "untyped_storage", "share_memory_", "share_memory", "from_file", "tofile",
              "compile", "mro")  # on any value: the ways out of torch's tensors and modules (x.numpy() brings numpy's
# files and clocks; torch.from_file reads any file; module.compile(backend=f) hands f the graph, torch inside;
# module.share_memory() shares memory across runs), and a class's .mro(), which hands out BaseException and object
DUNDERS = {"__init__", "__name__"}  # the only __dunder__ attributes a test may use (super().__init__(), f.__name__)
FRAME = re.compile(r"(f|tb|gi|cr|ag|co)_[a-z]+")  # a frame's, traceback's, generator's or code object's insides
HOMEWORK = ("anatomy.homework", "anatomy_grading")  # the homework's module (`hw`): a test in the grader has none
FIELD = re.compile(r"\{[^{}]*?\.(_\w+)")  # a format field reading a private attribute: "{0._x}", "{0.__closure__}"
PLAIN_FIELDS = re.compile(r"([^{}]|\{\{|\}\}|\{\w*(![rsa])?(:[^{}]*)?\})*")  # "{}", "{0}", "{name:.3f}": no attribute


def judge_import(node: ast.Import | ast.ImportFrom, in_function: bool, refuse) -> None:
    """Inside a function an import runs in the test's run: what it names must be allowed. Anywhere: no `*` (it binds
    names nobody can read off the source), no private name and no way out of torch taken by name."""
    module = node.module or "" if isinstance(node, ast.ImportFrom) else ""
    for alias in node.names:
        code = f"from {module} import {alias.name}" if isinstance(node, ast.ImportFrom) else f"import {alias.name}"
        target = f"{module}.{alias.name}" if isinstance(node, ast.ImportFrom) else alias.name
        if alias.name == "*":
            refuse("seen_code", "why_allowed", code=f"`{code}`")
        elif isinstance(node, ast.ImportFrom) and alias.name.startswith("_"):
            refuse("seen_private", "why_detect", attr=alias.name)
        elif isinstance(node, ast.ImportFrom) and alias.name in ATTRIBUTES:
            refuse("seen_code", "why_allowed", code=f"`{code}`")
        elif in_function:
            reach(code, target, refuse)


def reach(code: str, target: str, refuse) -> bool:
    """Refuse `code` if what it names (`target`) is a module outside ALLOWED or a name of torch outside its tensor
    functions (allowed.refused_module); whether it was."""
    if not (reached := allowed.refused_module(target)):
        return False
    refuse_reached(code, reached, refuse)
    return True


def refuse_reached(code: str, reached: str, refuse) -> None:  # worded by what `reached` is: a module, or a name in one
    refuse("seen_module" if allowed.is_module(reached) else "seen_torch", "why_allowed", code=code, module=reached)


def judge_name(name: str, in_function: bool, is_base: bool, imported: dict[str, str], given: set[str], refuse) -> None:
    """A name the code reads that is not local where it is read: what it names must be allowed (the homework's
    module only outside a function, for practice), a module only through its attributes (`t = torch` would carry
    it past the review); else a builtin of allowed.BUILTINS or a helper's name, never GIVEN's."""
    if name in imported:
        target = imported[name]
        if target.startswith(HOMEWORK):
            if in_function:
                refuse("seen_homework", "why_detect", name=name)
        elif reach(name, target, refuse):
            return
        elif target.rsplit(".", 1)[-1] in ATTRIBUTES:
            refuse("seen_code", "why_allowed", code=f"`{name}`")
        elif not is_base and allowed.is_module(target):
            refuse("seen_module_value", "why_allowed", code=name)
    elif name == "hw" or name in given:  # a lone test's bare `hw` is the homework's module
        if in_function:
            refuse("seen_homework", "why_detect", name=name) if name == "hw" else refuse("seen_name", "why_allowed", name=name)
    elif allowed.builtin_refused(name):
        refuse("seen_code", "why_allowed", code=f"`{name}`")


def judge_attribute(node: ast.Attribute, is_base: bool, imported: dict[str, str], local: frozenset[str], refuse) -> None:
    """No private or frame attribute, no way out of a tensor (ATTRIBUTES), no str.format but on a literal with plain
    fields, no submodule outside ALLOWED (torch.utils, torch.os) nor a name of torch outside its tensor functions
    (torch.save), no module as a value (m = torch.nn), no attribute set on a module (torch.seen = [])."""
    root, chain = scopes.root_of(node), scopes.dotted(node)
    on_module = root in imported and root not in local
    if node.attr.startswith("_") and node.attr not in DUNDERS:
        refuse("seen_private", "why_detect", attr=node.attr)
    elif FRAME.fullmatch(node.attr):
        refuse("seen_code", "why_detect", code=f"`.{node.attr}`")
    elif node.attr in ATTRIBUTES:
        refuse("seen_code", "why_allowed", code=f"`.{node.attr}`")
    elif node.attr in ("format", "format_map") and not (isinstance(node.value, ast.Constant) and node.attr == "format"
                                                        and PLAIN_FIELDS.fullmatch(str(node.value.value))):
        refuse("seen_code", "why_detect", code=f"`.{node.attr}`")  # "{0.gi_frame}".format(g) reads attributes
    elif isinstance(node.ctx, (ast.Store, ast.Del)) and on_module:
        refuse("seen_state", "why_detect", code=ast.unparse(node)[:60])
    elif chain and on_module and not allowed.refused_module(imported[root]):
        target = imported[root] + chain[len(root):]
        if reached := allowed.refused_module(target):  # named as the code wrote it: F.grad, not torch.nn.functional.grad
            refuse_reached(root + reached[len(imported[root]):], reached, refuse)
        elif not is_base and allowed.is_module(target):
            refuse("seen_module_value", "why_allowed", code=chain)
