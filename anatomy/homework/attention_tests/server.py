"""The process that holds the implementation under test (homework 3, notebook 19_homework_attention_tests).

A test never holds an implementation: every one (the correct one, each mutant, each equivalent mutant) is
built here, in a process apart from the tests (`python -m anatomy.homework.attention_tests.server`; one
process rebuilds the implementation for every run and restarts only after a failure), and the test receives stand_in.Implementation proxies, whose type,
attributes and everything reachable are the same whichever one runs; only the numbers that come back differ.
`serve()` is that process: frames (frames.py: JSON and tensors, no pickle) on stdin, replies on stdout. "build" (the runner's only: the grader's relay refuses it from a test) builds one implementation
(subject.build) after seeding torch and forgets the previous run's objects; "call", "getattr", "len",
"getitem", "iter" serve a test, on the public API only (PUBLIC): what subject.py's docstrings promise a test.
Objects come back as numbers, counted from 1 in the order the run first meets them, so that the same test
sees the same numbers against every implementation; tensors come back as copies. `Server` (server_link.py)
starts this process and talks to it.
"""
from __future__ import annotations

import io
import os
import sys
import types
from types import SimpleNamespace
from typing import Any

import torch
from torch import nn

from anatomy.homework.attention_tests import frames

MODULE_METHODS = {"eval", "train", "forward", "state_dict", "load_state_dict", "parameters", "named_parameters",
                  "children", "named_children", "requires_grad_", "zero_grad", "double", "float", "to", "training"}
PUBLIC = {"MultiHeadAttention": {"num_heads", "head_dim"}, "KVCache": {"update", "keys", "values"},
          "Linear": {"in_features", "out_features"}, "LayerNorm": {"normalized_shape", "eps"}}  # by the correct class's name
TEST_OPS = ("call", "getattr", "len", "getitem", "iter")  # what a test may ask; "build" is the runner's


class Run:
    """One implementation and the objects a test has met in this run, numbered from 0 (the implementation)."""

    def __init__(self, impl: Any = None) -> None:
        self.objects: list[Any] = [impl]
        self.numbers: dict[int, int] = {id(impl): 0}

    def number(self, value: Any) -> int:
        if id(value) not in self.numbers:
            self.numbers[id(value)] = len(self.objects)
            self.objects.append(value)
        return self.numbers[id(value)]

    def encode(self, value: Any, tensors: dict) -> Any:
        value = list(value) if isinstance(value, types.GeneratorType) else value  # parameters(): a list
        return frames.to_data(value, tensors, lambda item: {"t": "handle", "id": self.number(item)})

    def decode(self, data: Any, tensors: dict) -> Any:
        def incoming(item: dict) -> Any:
            if item.get("t") != "handle" or not isinstance(item.get("id"), int) or not 0 <= item["id"] < len(self.objects):
                raise TypeError("only tensors, numbers, strings, lists, tuples, dicts and objects the implementation "
                                f"under test returned can be passed to it, got {str(item)[:60]}")
            return self.objects[item["id"]]
        return frames.from_data(data, tensors, incoming)


def allowed(target: Any, name: str) -> bool:
    """Whether `name` is public API of `target`: the implementation's five pieces, a module's submodules,
    parameters and buffers, nn.Module's methods, and PUBLIC (looked up by the correct class's name)."""
    if name.startswith("_"):
        return False
    if isinstance(target, SimpleNamespace):
        return name in vars(target)
    names = set().union(*(PUBLIC.get(cls.__name__, ()) for cls in type(target).__mro__))
    if isinstance(target, nn.Module):
        names |= MODULE_METHODS | set(target._modules) | set(target._parameters) | set(target._buffers)
    return name in names


def answer(request: dict, tensors: dict, run: Run) -> Any:
    op, target = request.get("op"), run.decode(request.get("of", {"t": "handle", "id": 0}), tensors)
    if op == "call":
        args, kwargs = run.decode(request.get("args", []), tensors), run.decode(request.get("kwargs", {}), tensors)
        if not callable(target) or isinstance(target, SimpleNamespace):
            raise TypeError("this object of the implementation under test is not callable")
        with torch.set_grad_enabled(bool(request.get("grad", True))):
            return target(*args, **kwargs)
    if op == "getattr":
        name = str(request.get("name"))
        if not allowed(target, name):
            raise AttributeError(f"the implementation under test offers no attribute {name!r} here")
        return getattr(target, name)
    if op == "len":
        return len(target)
    if op == "getitem" and isinstance(target, nn.Sequential):
        return target[run.decode(request.get("index"), tensors)]
    if op == "iter" and isinstance(target, (nn.Sequential, list, tuple)):
        return list(target)
    raise TypeError(f"the implementation under test does not support {op!r} here")


def serve() -> None:
    """The server's loop: one reply frame on the original stdout for each request frame on stdin."""
    from anatomy.homework.attention_tests.subject import build

    replies = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)  # whatever else prints goes to stderr, never into a reply
    sys.stdout = sys.stderr
    torch.set_num_threads(1)
    requests, run = io.FileIO(0, "rb", closefd=False), Run()

    def read(n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = requests.read(n - len(data))
            if not chunk:
                raise SystemExit(0)
            data += chunk
        return data

    while True:
        request, tensors = frames.read_frame(read)
        out: dict = {}
        try:
            if request.get("op") == "build":
                torch.manual_seed(int(request["seed"]))
                run = Run(build(request["bug"]))
                value = None
            else:
                value = run.encode(answer(request, tensors, run), out)
            reply: dict = {"value": value}
        except Exception as error:  # the test's call failed: the same builtin exception, on the test's side
            out, reply = {}, {"error": {"type": type(error).__name__, "message": str(error)[:2000]}}
        replies.write(frames.pack(reply, out))


if __name__ == "__main__":
    serve()
