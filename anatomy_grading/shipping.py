"""Modules that cross the wire by value: rebuilt on the other side from their class, config and weights.

Both sides load this module (the child gets it as source). A shipped module is named by its class
in SHIPPABLE; the receiver builds a fresh one from the config, loads the weights strictly and sets
its mode, so only data crosses. The parent ships the encoders and translator it hands to answers
and the known-good substitutes of a homework; the child ships back only nn.Linear layers (with
their gradients), which the checks read as plain modules. Substitutes (SUBSTITUTES) are homework
modules sent to the child as source, for the questions that fall back on them.
"""
from __future__ import annotations

import importlib
from types import MethodType
from typing import Any, Callable

import torch
from torch import nn

TO_CHILD = ("anatomy.models.encoder.TransformerEncoder", "anatomy.models.transformer.Transformer",
            "anatomy.homework.cross_attention.substitutes.KnownGoodCrossAttention")
TO_PARENT = ("torch.nn.modules.linear.Linear",)
SUBSTITUTES = ("anatomy.homework.cross_attention.substitutes", "anatomy.homework.sentiment.substitutes",
               "anatomy.homework.attention_tests.state", "anatomy.homework.attention_tests.stand_in")


def class_name(value: Any) -> str:
    return f"{type(value).__module__}.{type(value).__qualname__}"


def find(name: str, allowed: tuple[str, ...]) -> Any:
    """The class or function `name` (module.attribute), if `allowed` names it or its module."""
    module, _, attribute = name.rpartition(".")
    if name not in allowed and module not in allowed:
        raise ValueError(f"{name} may not cross the wire")
    return getattr(importlib.import_module(module), attribute)


def recipe(module: nn.Module, encode: Callable[[Any], Any]) -> dict:
    """{"t": "module", ...}: the class, the config (nn.Linear: its sizes), the weights, the mode."""
    if isinstance(module, nn.Linear):
        config: Any = [module.in_features, module.out_features, module.bias is not None]
        grads = {name: p.grad for name, p in module.named_parameters() if p.grad is not None}
    else:
        config, grads = module.config, {}
    return {"t": "module", "c": class_name(module), "config": encode(config), "training": module.training,
            "state": encode(dict(module.state_dict())), "grads": encode(grads)}


def build(data: dict, decode: Callable[[Any], Any], allowed: tuple[str, ...]) -> nn.Module:
    cls = find(str(data["c"]), allowed)
    config = decode(data["config"])
    module = nn.Linear(*config) if cls is nn.Linear else cls(config)
    with torch.no_grad():
        module.load_state_dict(decode(data["state"]), strict=True)
    for name, grad in decode(data.get("grads") or {"t": "dict", "v": []}).items():
        module.get_parameter(name).grad = grad
    return module.train(bool(data["training"]))


def reference(value: Any) -> dict | None:
    """{"t": "ref"} for a substitute's class or function, {"t": "method"} for one bound to a remote object."""
    if isinstance(value, MethodType):
        inner = reference(value.__func__)
        return None if inner is None else {"t": "method", "func": inner, "self": value.__self__}
    name = f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', '')}"
    return {"t": "ref", "v": name} if name.rpartition(".")[0] in SUBSTITUTES else None
