"""What a homework-3 test receives as `impl` (notebook 19_homework_attention_tests), and how each run starts.

The implementation under test lives in a process apart from the tests (server.py); the test's `impl` is an
Implementation: a proxy whose type, attributes and methods are the same for every implementation (the
correct one, each mutant, each equivalent one). Calling it, reading a public attribute (mha.q_proj.weight),
len(cache), layer.eval() each become one request; tensors cross as copies (gradients do not flow back),
objects as further proxies numbered in the order the run meets them. `Link` speaks for one run: in the
notebook its `ask` is the server's, in the grader's child it is the child's channel to the grader, which
forwards only a test's requests.

Each run starts from the same state in Python: every run happens in a fork of its own (trial.py) that ends
with it, and `run_test` puts fresh copies of the globals the tests read back (state.py) and seeds torch,
random and numpy first. In the grader's sealed child no file or shared memory survives a fork either
(trial.py); the pid tells a test at most its position among the runs, which mutation.py's secret order
makes worth nothing. The proxies cannot be
copied (COPY_REFUSED: build another and load_state_dict). Sent to the grader's child as source
with frames.py, state.py and trial.py (plan.py): they import only torch, safetensors and the standard library.
"""
from __future__ import annotations

import builtins
import os
import random
import sys
from typing import Any, Callable

import torch

from anatomy.homework.attention_tests.frames import from_data, to_data  # full names: in the child, substitutes
from anatomy.homework.attention_tests.state import State
from anatomy.homework.attention_tests.trial import isolated

Ask = Callable[[dict, dict], tuple[dict, dict]]
COPY_REFUSED = ("objects of the implementation under test cannot be copied: build another and load the weights, "
                "twin.load_state_dict(mha.state_dict())")  # messages' "copy_refused" (en); the grader words it


class Implementation:
    """One object of the implementation under test (number 0: `impl` itself)."""

    __slots__ = ("_number", "_link")
    __homework_stand_in__ = True  # state.STAND_IN: a global holding one (the practice object) is named in feedback

    def __init__(self, number: int, link: Link) -> None:
        object.__setattr__(self, "_number", number)
        object.__setattr__(self, "_link", link)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return self._link.send("getattr", self, name=name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot set {name!r} on the implementation under test (load_state_dict sets weights)")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._link.send("call", self, args=list(args), kwargs=kwargs)

    def __len__(self) -> int:
        return self._link.send("len", self)

    def __getitem__(self, index: Any) -> Any:
        return self._link.send("getitem", self, index=index)

    def __iter__(self):
        return iter(self._link.send("iter", self))

    def __bool__(self) -> bool:
        return True

    def __copy__(self) -> Any:  # the object lives in the server's process: a copy here would be a second proxy
        raise TypeError(COPY_REFUSED)

    def __deepcopy__(self, memo: dict) -> Any:
        raise TypeError(COPY_REFUSED)

    def __repr__(self) -> str:
        return f"<object {self._number} of the implementation under test>"


class Link:
    """One run's requests: encode them, ask, raise what the implementation raised, decode the answer."""

    def __init__(self, ask: Ask) -> None:
        self.ask, self.met = ask, {}

    def proxy(self, number: int) -> Implementation:
        if number not in self.met:
            self.met[number] = Implementation(number, self)
        return self.met[number]

    def send(self, op: str, target: Implementation, **fields: Any) -> Any:
        tensors: dict = {}

        def outgoing(item: Any) -> Any:
            if isinstance(item, Implementation) and object.__getattribute__(item, "_link") is self:
                return {"t": "handle", "id": object.__getattribute__(item, "_number")}
            raise TypeError(f"cannot pass a {type(item).__name__} to the implementation under test: tensors, "
                            "numbers, strings, lists, tuples, dicts, dtypes, devices and what it returned only")
        message = {"op": op, "grad": torch.is_grad_enabled(), "of": outgoing(target)}
        message |= {k: v if k == "name" else to_data(v, tensors, outgoing) for k, v in fields.items()}
        reply, received = self.ask(message, tensors)
        if "error" in reply:
            raise error_of(reply["error"])

        def incoming(item: dict) -> Any:
            if item.get("t") != "handle":
                raise TypeError(f"unexpected {item.get('t')!r} from the implementation under test")
            return self.proxy(int(item["id"]))
        return from_data(reply.get("value"), received, incoming)


def error_of(error: dict) -> Exception:
    """What the implementation raised, as the same builtin exception (else a RuntimeError naming it)."""
    name, message = str(error.get("type")), str(error.get("message"))
    cls = getattr(builtins, name, None)
    if isinstance(cls, type) and issubclass(cls, Exception):
        return cls(message)
    return RuntimeError(f"{name}: {message}")


def run_test(test: Callable, ask: Ask, state: State, seed: int) -> None:
    """One run: the tests' globals as the snapshot holds them, every generator seeded, a fresh `impl`;
    afterwards the globals as the snapshot holds them again (a check leaves them as it found them)."""
    state.restore()
    torch.manual_seed(seed)
    random.seed(seed)
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed(seed)
    try:
        test(Implementation(0, Link(ask)))
    finally:
        state.restore()


CHANNEL: dict[str, Any] = {}  # in the grader's child: "ask", its channel to the grader, and "sealed" (trial.isolated's)


def run_in_child(test: Callable, state: State, seed: int, cpu: float, wall: float) -> tuple[str | None, float]:
    """run_test in a fork of the grader's child (trial.py), within `cpu` seconds of CPU time and `wall` on the clock
    (clock.py): (None when it passed, else why it failed; its CPU seconds). The requests go to the grader over the
    trials' channel; a fork that ended mid-request ends the child too (its channel may hold half a frame), as a test
    that ended the child would, and so does one ended at a limit: the exit code (clock.LOST, LATE, SPENT) says which,
    and checks.py words it."""
    return isolated(lambda: run_test(test, CHANNEL["ask"], state, seed), (cpu, wall), os._exit, CHANNEL.get("sealed"))
