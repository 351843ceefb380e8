"""Proxies of the child's objects that are not nn.Modules: functions, classes, anything else.

Each attribute read, call, len/iter/[] is one request to the child (proxies.Session.send); a
RemoteType builds its instances in the child, seeded like the caller's torch, and can stand in a
substitute for a name its methods use (the checks' `stand_in`). `__remote_type__` is the class the
child reports, which anatomy.homework's `type_of` returns.
"""
from __future__ import annotations

import contextlib
from typing import Any

import torch


class Held:
    """What every proxy has: its child's session, its handle, what the child reported, len/iter/[]."""

    def _hold(self, session: Any, number: int, info: dict) -> None:
        object.__setattr__(self, "_session", session)
        object.__setattr__(self, "_id", number)
        object.__setattr__(self, "_info", info)

    @property
    def __remote_type__(self) -> Any:
        return self._session.type_of(self._info)

    def _ask(self, name: str) -> Any:
        return self._session.send("getattr", of=self, name=name)

    def __len__(self) -> int:
        return self._session.send("len", of=self)

    def __iter__(self):
        return iter(self._session.send("iter", of=self))

    def __getitem__(self, index: Any) -> Any:
        return self._session.send("getitem", of=self, index=index)


class Remote(Held):
    """An object that stays in the child."""

    def __init__(self, session: Any, number: int, info: dict) -> None:
        self._hold(session, number, info)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return self._ask(name)

    def __setattr__(self, name: str, value: Any) -> None:
        self._session.send("setattr", of=self, name=name, value=value)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._session.send("call", of=self, args=list(args), kwargs=kwargs, grad=torch.is_grad_enabled())

    def __repr__(self) -> str:
        return f"<{self._info['cls']['name']} in the grading child>"


class RemoteFunction(Remote):
    @property
    def __name__(self) -> str:
        return str(self._info.get("name", self._info["cls"]["name"]))  # the child's function's own name


class RemoteType(Remote):
    """A class of the notebook's; calling it builds an instance there, seeded like the caller's torch."""

    __name__ = property(lambda self: str(self._info["cls"]["name"]))
    mro_names = property(lambda self: list(self._info["cls"]["mro"]))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._session.send("call", of=self, args=list(args), kwargs=kwargs, grad=torch.is_grad_enabled(),
                                  seed=torch.initial_seed())

    @contextlib.contextmanager
    def stand_in(self, replaced: Any, replacement: Any):
        """The child's notebook globals this class sees that name `replaced` name `replacement` meanwhile."""
        self._session.send("rebind", of=self, old=replaced, new=replacement)
        try:
            yield
        finally:
            self._session.send("rebind", of=self, old=replacement, new=replaced)

