"""The child's side of the proxies: objects that stay in the child, and the requests it answers.

Sent to the child as source (child.py). Handles numbers every object the parent holds a proxy of;
`answer` serves one request: run a cell, look up a notebook name, call, read or set an attribute,
len/iter/[], rebind a global for a substitute, record a module's modes while a check runs. CHANNEL["ask"]
sends a request to the grader in the middle of one (homework 3's tests reach their implementation so).
"""
from __future__ import annotations

import types
from typing import Any

import torch
from torch import nn

from anatomy_grading import blocks, shipping, wire

CHANNEL: dict[str, Any] = {}  # "ask": child.main's way to ask the grader mid-call (homework 3's implementation)


class Handles:
    """The child's objects the parent refers to, and the wire hooks that use them."""

    def __init__(self) -> None:
        self.objects: dict[int, Any] = {}
        self.numbers: dict[int, int] = {}  # id(object) -> its handle
        self.spies: dict[int, tuple] = {}

    def number(self, value: Any) -> int:
        if id(value) not in self.numbers:
            self.numbers[id(value)] = len(self.objects) + 1
            self.objects[len(self.objects) + 1] = value
        return self.numbers[id(value)]

    def class_info(self, cls: type) -> dict:
        mro = [f"{c.__module__}.{c.__qualname__}" for c in getattr(cls, "__mro__", ())]
        return {"id": self.number(cls), "name": str(cls.__name__), "mro": mro}

    def outgoing(self, value: Any, tensors: dict) -> Any:
        if type(value) is nn.Linear:
            return shipping.recipe(value, lambda v: self.encode(v, tensors))
        kind = ("class" if isinstance(value, type) else "module" if isinstance(value, nn.Module)
                else "callable" if callable(value) else "object")
        info = {"t": "handle", "id": self.number(value), "kind": kind,
                "cls": self.class_info(value if kind == "class" else type(value))}
        if kind == "module":
            info["training"] = bool(value.training)
        if isinstance(value, (types.FunctionType, types.MethodType)):  # its own name, for feedback that names the test
            info["name"] = str(value.__name__)[:100]
        return info

    def encode(self, value: Any, tensors: dict) -> Any:
        return wire.encode(value, tensors, lambda v: self.outgoing(v, tensors))

    def decode(self, data: Any, tensors: dict) -> Any:
        def incoming(item: dict) -> Any:
            tag = item["t"]
            if tag == "handle":
                return self.objects[int(item["id"])]
            if tag == "module":
                return shipping.build(item, again, shipping.TO_CHILD)
            if tag == "ref":
                return shipping.find(str(item["v"]), shipping.SUBSTITUTES)
            if tag == "method":
                return types.MethodType(again(item["func"]), again(item["self"]))
            raise wire.WireError(f"unknown value {tag!r}")
        again = lambda d: wire.decode(d, tensors, incoming)  # noqa: E731
        return again(data)


def answer(request: dict, tensors: dict, handles: Handles, namespace: dict) -> Any:
    op, decode = request["op"], lambda d: handles.decode(d, tensors)
    if op == "exec":
        code = compile(request["source"], f"<cell {request['index']}>", "exec")
        blocks.Student.register(code)  # the student's own code: what it calls is recorded (reach.py)
        return exec(code, namespace)
    if op == "get":
        if request["name"] not in namespace:
            raise NameError(f"name '{request['name']}' is not defined in your notebook")
        return namespace[request["name"]]
    target = decode(request["of"]) if "of" in request else None
    if op in ("call", "method"):
        function = getattr(target, request["name"]) if op == "method" else target
        args, kwargs = decode(request["args"]), decode(request["kwargs"])
        if request.get("seed") is not None:
            torch.manual_seed(int(request["seed"]))
        with torch.set_grad_enabled(bool(request.get("grad", True))):
            result = function(*args, **kwargs)
        return list(result) if request.get("list") else result
    if op == "getattr":
        return getattr(target, request["name"])
    if op == "setattr":
        return setattr(target, request["name"], decode(request["value"]))
    if op in ("len", "iter"):
        return len(target) if op == "len" else list(target)
    if op == "getitem":
        return target[decode(request["index"])]
    if op == "rebind":  # the globals a class's methods see that are bound to `old` now name `new`
        scope = next(f.__globals__ for f in vars(target).values() if hasattr(f, "__globals__"))
        old, new = decode(request["old"]), decode(request["new"])
        names = [name for name, value in scope.items() if value is old]
        scope.update(dict.fromkeys(names, new))
        return names
    if op == "spy":  # (training, autograd on) at each forward call of the target, until switched off
        if request["on"]:
            log: list = []
            hook = target.register_forward_pre_hook(lambda m, a: log.append((m.training, torch.is_grad_enabled())))
            handles.spies[id(target)] = (hook, log)
            return None
        hook, log = handles.spies.pop(id(target))
        hook.remove()
        return log
    raise wire.WireError(f"unknown request {op!r}")
