"""Proxies: the child's answers, seen by the unchanged checks as functions, classes and nn.Modules.

A Session wraps one child. `session.answer("CrossAttention")` returns a proxy for the notebook's
name; calling it, reading its attributes, `state_dict()`, `train()`, iterating a remote ModuleList...
each becomes one request to the child, and what comes back is plain data (tensors as copies) or a
further proxy. The checks therefore run here, in the trusted process, on values the child returned.
What the child raised comes back as the same builtin exception (so `call` words it as before); a
refused library call becomes the Feedback "uses ...". The child's answers about *how* it computed
something (its classes, its modes) are its own word: poisoning and the static checks back them up.
"""
from __future__ import annotations

import builtins
import math
import re
import time
from types import MethodType, SimpleNamespace
from typing import Any

import torch
from torch import nn

from anatomy.homework.feedback import Feedback
from anatomy.homework.messages import Message
from anatomy_grading import shipping, wire
from anatomy_grading.connection import Child
from anatomy_grading.remote import Held, Remote, RemoteFunction, RemoteType
from anatomy_grading.remote_module import RemoteModule

BUILTIN_ERRORS = {name: getattr(builtins, name) for name in (
    "NotImplementedError", "ValueError", "TypeError", "RuntimeError", "IndexError", "KeyError", "AttributeError",
    "ZeroDivisionError", "NameError", "AssertionError", "OverflowError", "ImportError", "ModuleNotFoundError",
    "UnboundLocalError", "RecursionError", "MemoryError", "OSError", "StopIteration", "LookupError", "ArithmeticError")}
WHY = {"attention": "why_attention", "layers": "why_layer", "plain": "why_no_data"}  # poison.KIND's reasons, as catalogue keys


class RemoteError(Exception):
    """An exception of a type only the child knows; its class is named after the child's."""


def remote_error(name: str, message: str) -> BaseException:
    cls = BUILTIN_ERRORS.get(name)
    if cls is None:
        cls = type(re.sub(r"\W", "", name)[:60] or "Error", (RemoteError,), {})
    return cls(message)


class Session:
    def __init__(self, child: Child, call_timeout: float, deadline: float = math.inf, over: str = "") -> None:
        """`deadline` (time.monotonic()) ends every call, whatever its own limit; `over` says so."""
        self.child, self.call_timeout, self.proxies = child, call_timeout, {}
        self.deadline, self.over = deadline, over or "ran past the grader's limit for one notebook"

    def send(self, op: str, timeout: float | None = None, **fields: Any) -> Any:
        tensors: dict = {}
        message = {"op": op, **{k: self.encode(v, tensors) if k in ("of", "args", "kwargs", "value", "index", "old", "new") else v
                                for k, v in fields.items()}}
        wanted, left = timeout or self.call_timeout, self.deadline - time.monotonic()
        if left <= 0:
            self.child.fail(self.over)
        reply, received = self.child.request(message, tensors, min(wanted, left), None if wanted <= left else self.over)
        refused = [str(r)[:120] for r in reply.get("refused", [])]
        if refused:
            raise Feedback("refused", name=refused[0], why=Message(WHY.get(self.kind_of(refused[0]), "why_forbidden")))
        if "error" in reply:
            raise remote_error(str(reply["error"].get("type")), str(reply["error"].get("message"))[:2000])
        return self.decode(reply.get("value"), received)

    def kind_of(self, label: str) -> str:
        return "layers" if "DecoderLayer" in label or label.endswith(("TransformerDecoder", "Transformer")) else \
            "plain" if "reviews" in label else "attention"

    def answer(self, name: str) -> Any:
        return self.send("get", name=name)

    def encode(self, value: Any, tensors: dict) -> Any:
        def outgoing(item: Any) -> Any:
            if isinstance(item, Held):
                if item._session is not self:
                    raise wire.WireError("a proxy of another child")
                return {"t": "handle", "id": item._id}
            if hasattr(item, "__next__"):
                return {"t": "iter", "v": [again(v) for v in item]}
            if isinstance(item, nn.Module) and shipping.class_name(item) in shipping.TO_CHILD:
                return shipping.recipe(item, again)
            if (ref := shipping.reference(item)) is not None:
                return ref | ({"self": again(ref["self"])} if "self" in ref else {})
            if callable(getattr(item, "to_dict", None)):  # a transformers config: its fields
                return again(SimpleNamespace(**item.to_dict()))
            raise wire.WireError(f"cannot hand a {type(item).__name__} to the child")
        again = lambda v: wire.encode(v, tensors, outgoing)  # noqa: E731
        return again(value)

    def decode(self, data: Any, tensors: dict) -> Any:
        def incoming(item: dict) -> Any:
            if item["t"] == "module":
                return shipping.build(item, again, shipping.TO_PARENT)
            if item["t"] != "handle":
                raise wire.WireError(f"unexpected {item['t']!r} from the child")
            return self.proxy(item)
        again = lambda d: wire.decode(d, tensors, incoming)  # noqa: E731
        return again(data)

    def proxy(self, info: dict) -> Any:
        number = int(info["id"])
        if number not in self.proxies:
            kind = info.get("kind")
            cls = {"class": RemoteType, "module": RemoteModule}.get(kind, RemoteFunction if kind == "callable" else Remote)
            self.proxies[number] = cls(self, number, info)
        found = self.proxies[number]
        if isinstance(found, RemoteModule) and "training" in info:
            object.__setattr__(found, "training", bool(info["training"]))
        return found

    def type_of(self, info: dict) -> RemoteType:
        return self.proxy({"t": "handle", "id": info["cls"]["id"], "kind": "class", "cls": info["cls"]})
