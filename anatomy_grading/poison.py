"""What the child refuses to run, set up before any student code: poisoning and audit tripwires.

Policies (a homework's plan picks one per child):
- "attention": every ATen operator of the installed torch whose name contains "attention",
  "multi_head" or "transformer_" (enumerated from the dispatcher at start-up, so a torch upgrade
  brings its new kernels here; failing to replace one is an instructor error), and every Python
  function or nn.Module class whose name says attention in torch.nn, torch's flex attention,
  transformers, anatomy, and any module imported later.
- "layers": the library decoder layers (anatomy's and torch's), for the questions that write one.
- "plain": nothing to write yourself; only the review data loader is refused.
A refused call raises RuntimeError and reports itself with sys.audit("grading.refused", label), so
the grader learns of it even when the student's code catches the error (tripwires.py records it,
and refuses what would undo the poisoning).
"""
from __future__ import annotations

import ctypes
import importlib
import re
import sys
import types
import warnings
import weakref

import torch
from torch import nn

from anatomy_grading import tripwires

ATEN = ("attention", "multi_head", "transformer_")
WORDS = {"attention": re.compile(r"attention|multi_?head", re.I), "layers": re.compile(r"DecoderLayer$"),
         "plain": re.compile(r"^(load_reviews|fetch_reviews)$")}
MODULES = {"attention": ("torch.nn.functional", "torch.nn.modules.activation", "torch.nn.attention",
                         "torch.nn.attention.flex_attention", "torch._higher_order_ops.flex_attention", "transformers",
                         "anatomy"),
           "layers": ("torch.nn.modules.transformer", "anatomy.models.decoder"),
           "plain": ("anatomy.corpora.sentiment_data",)}
EXTRA = {"attention": {"AdaptiveSpan", "ProductKeyMemory", "product_key_top_k"}, "plain": set(),
         "layers": {"torch.nn.modules.transformer.TransformerDecoder", "torch.nn.modules.transformer.Transformer"}}
KIND = {"attention": "this question asks you to write the attention yourself",
        "layers": "this question asks for your own decoder layer",
        "plain": "the grader has no review data: train on the batches you are handed"}
SHORT = {"torch.nn.modules.activation.": "nn.", "torch.nn.functional.": "F.", "torch.nn.modules.transformer.": "nn.",
         "anatomy.models.decoder.": "anatomy.", "anatomy.layers.multihead.": "anatomy.",
         "anatomy.layers.attention.": "anatomy."}
KIND_OF: dict[str, str] = {}  # label -> the reason a refusal gives


def short(name: str) -> str:
    for long, replacement in SHORT.items():
        name = name.replace(long, replacement)
    return name


def refusing_code(fn: types.FunctionType, name: str) -> types.CodeType:
    """A code object that reports and refuses, with fn's free variables (so it can replace fn.__code__)."""
    free = fn.__code__.co_freevars
    lines = ["def outer():", *[f"    {v} = None" for v in free], "    def refused(*args, **kwargs):",
             f"        {', '.join(free)}" if free else "        pass",
             f"        __import__('sys').audit('grading.refused', {name!r})",
             f"        raise RuntimeError({f'the grader refused {name}: {KIND_OF[name]}'!r})", "    return refused"]
    scope: dict = {}
    exec(compile("\n".join(lines), "<grader refusal>", "exec"), scope)
    return scope["outer"]().__code__.replace(co_name=fn.__code__.co_name)


def swap(fn: types.FunctionType, name: str, policy: str) -> None:
    KIND_OF.setdefault(name, KIND[policy])
    tripwires.guard(fn)
    fn.__code__ = refusing_code(fn, name)


def poison_module(module: types.ModuleType, policy: str) -> list[str]:
    done, words = [], WORDS[policy]
    for attribute, value in list(vars(module).items()):
        if not isinstance(value, (types.FunctionType, type)):  # only these are poisoned; reading another object's
            continue  # attribute may run its code (transformers 5.20's alias modules import torchvision for __module__)
        extra = attribute in EXTRA[policy] or f"{module.__name__}.{attribute}" in EXTRA[policy]
        if value.__module__ != module.__name__ or not (words.search(attribute) or extra):
            continue
        name = short(f"{module.__name__}.{attribute}")
        if isinstance(value, types.FunctionType):
            swap(value, name, policy)
            done.append(name)
        elif isinstance(value, type) and issubclass(value, nn.Module):
            for method in ("forward",) if policy == "layers" else ("__init__", "forward"):
                if isinstance(vars(value).get(method), types.FunctionType):
                    swap(vars(value)[method], name, policy)
            done.append(name)
    return done


def poison_aten() -> list[str]:
    """Replace every kernel of every attention ATen operator; any failure is the instructor's to fix."""
    names = [n for n in torch._C._dispatch_get_all_op_names() if n.startswith("aten::") and any(w in n for w in ATEN)]
    if not names:
        raise RuntimeError("found no attention operators in torch's dispatcher: the poisoning needs updating")
    library = torch.library.Library("aten", "IMPL")
    for name in names:
        name_ = "F.scaled_dot_product_attention" if name == "aten::scaled_dot_product_attention" else f"torch.ops.{name[:4]}.{name[6:]}"
        KIND_OF[name_] = KIND["attention"]

        def refuse(*args, _name=name_, **kwargs):
            sys.audit("grading.refused", _name)
            raise RuntimeError(f"the grader refused {_name}: {KIND['attention']}")
        for key in ("CompositeImplicitAutograd", "CompositeExplicitAutograd", "CPU", "CUDA", "Meta", "Autograd"):
            if torch._C._dispatch_has_kernel_for_dispatch_key(name, key):
                library.impl(name.removeprefix("aten::"), refuse, key)
    for finalizer in [f for f in list(weakref.finalize._registry) if f.peek() and f.peek()[0] is library]:
        finalizer.detach()  # nothing may undo the registrations...
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(library))  # ...and the library lives on with no Python reference
    return names


def poison(policy: str) -> list[str]:
    """Apply `policy`; returns the labels of what now refuses to run. Later imports are poisoned too."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        done = poison_aten() if policy == "attention" else []
        for prefix in MODULES[policy]:
            importlib.import_module(prefix)
            for name, module in list(sys.modules.items()):
                if isinstance(module, types.ModuleType) and (name == prefix or name.startswith(prefix + ".")):
                    done += poison_module(module, policy)
    sys.meta_path.insert(0, PoisonOnImport(policy))
    return sorted(set(done))


class PoisonOnImport:
    """A finder that poisons each module imported after start-up, once its code has run."""

    def __init__(self, policy: str) -> None:
        self.policy = policy

    def find_spec(self, name, path=None, target=None):
        for finder in sys.meta_path:
            spec = None if finder is self or not hasattr(finder, "find_spec") else finder.find_spec(name, path, target)
            if spec is not None:
                loader, policy = spec.loader, self.policy
                if loader is not None and not isinstance(loader, type) and hasattr(loader, "exec_module"):
                    def exec_module(module, _run=loader.exec_module):
                        _run(module)
                        poison_module(module, policy)
                    loader.exec_module = exec_module  # this module's own loader object
                return spec
        return None


