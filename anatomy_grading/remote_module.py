"""RemoteModule: an nn.Module of the child's, as the checks see it in the parent.

It is a real nn.Module (isinstance holds; .eval() and .train() reach the child), but it holds no
parameters here: calling it runs forward in the child; attribute reads, state_dict, load_state_dict,
named_children, parameters, len/iter/[] are requests; assigning a module or a substitute method to
one of its attributes ships that (shipping.py). A forward pre-hook registered on it runs in the child
as a recorder of (training, autograd on); removing it replays what was recorded into the hook here.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Any

import torch
from torch import nn

from anatomy_grading.remote import Held

LOCAL = {"training"}


class RemoteModule(Held, nn.Module):
    def __init__(self, session: Any, number: int, info: dict) -> None:
        nn.Module.__init__(self)
        self._hold(session, number, info)
        object.__setattr__(self, "training", bool(info.get("training", True)))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return self._ask(name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("_") or name in LOCAL:
            object.__setattr__(self, name, value)
        else:
            self._session.send("setattr", of=self, name=name, value=value)

    def method(self, name: str, *args: Any, listed: bool = False, **kwargs: Any) -> Any:
        return self._session.send("method", of=self, name=name, args=list(args), kwargs=kwargs,
                                  grad=torch.is_grad_enabled(), list=listed)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self._session.send("call", of=self, args=list(args), kwargs=kwargs, grad=torch.is_grad_enabled())

    def train(self, mode: bool = True) -> RemoteModule:
        self.method("train", mode)
        object.__setattr__(self, "training", bool(mode))
        return self

    def state_dict(self, *args: Any, **kwargs: Any) -> dict:
        return OrderedDict(self.method("state_dict"))

    def load_state_dict(self, state_dict: Any, strict: bool = True, assign: bool = False) -> Any:
        return self.method("load_state_dict", dict(state_dict), strict=strict)

    def named_children(self):
        return iter(self.method("named_children", listed=True))

    def children(self):
        return (module for _, module in self.named_children())

    def parameters(self, recurse: bool = True):
        return iter(self.method("parameters", recurse, listed=True))

    def named_parameters(self, *args: Any, **kwargs: Any):
        return iter(self.method("named_parameters", listed=True))

    def __bool__(self) -> bool:
        return True

    def register_forward_pre_hook(self, hook: Any, *args: Any, **kwargs: Any) -> Any:
        self._session.send("spy", of=self, on=True)
        return ReplayHandle(self, hook)

    def __repr__(self) -> str:
        return f"<{self._info['cls']['name']} (nn.Module) in the grading child>"


class ReplayHandle:
    """Removing it fetches the child's record and calls the hook once per recorded forward call."""

    def __init__(self, module: RemoteModule, hook: Any) -> None:
        self.module, self.hook = module, hook

    def remove(self) -> None:
        stand_in = nn.Module()
        for training, grad in self.module._session.send("spy", of=self.module, on=False):
            stand_in.training = bool(training)
            with torch.set_grad_enabled(bool(grad)):
                self.hook(stand_in, ())
