"""The notebook's practice object for homework 3 (notebook 19_homework_attention_tests): `hw.practice(None)`, the
implementation as a test receives it, to try tests on by hand, in a server process of its own (server_link.py).

While a check runs (`checking`), every practice object refuses every request: a test that uses one as its
reference (a default `ref=impl`, the notebook's global `impl`) then fails in the check cell as it does in the
grader, whose child has no practice object (`hw` is a stub there).
"""
from __future__ import annotations

import atexit
import contextlib
from typing import Any, Iterator

from anatomy.homework.attention_tests.server_link import Server

CHECKING: list[str] = []  # the language of each check running now (checking()): practice objects then refuse


@contextlib.contextmanager
def checking(language: str) -> Iterator[None]:
    """While a check runs, every practice object refuses every request, so that a test using one (a default
    `ref=impl`, the notebook's global) fails in the check cell as it does in the grader, which has none."""
    CHECKING.append(language)
    try:
        yield
    finally:
        CHECKING.pop()


def practice(bug: str | None = None, seed: int = 0) -> Any:
    """The implementation `bug` (None: the correct one) as a test receives it, in a process of its own (not
    the one the check cells rebuild before each run), for trying tests in the notebook: `hw.practice(None)`.
    It answers nothing while a check runs (checking)."""
    from anatomy.homework.attention_tests.stand_in import Implementation, Link
    from anatomy.homework.messages import say
    server = Server()
    atexit.register(server.close)
    server.build(bug, seed)

    def ask(message: dict, tensors: dict) -> tuple[dict, dict]:
        if CHECKING:
            return {"error": {"type": "RuntimeError", "message": say("practice_in_check", CHECKING[-1])}}, {}
        return server.ask(message, tensors)
    return Implementation(0, Link(ask))
