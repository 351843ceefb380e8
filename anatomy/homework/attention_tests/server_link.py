"""The runner's end of the process that holds the implementation under test (server.py), homework 3
(notebook 19_homework_attention_tests).

`shared()` is this process's Server, started on first use (practice.py: one of its own, for the notebook): in the notebook's check cells the tests call it
directly (stand_in.Implementation's link is `server.ask`), in the trusted grader the parent holds it and
relays what the child's tests ask (`relay`, which forwards only the ops a test may ask). `build(bug, seed)`
before each run. A request that runs past its deadline, is interrupted (a test's time limit) or finds the
process dead ends the process; the next build starts a fresh one, so a hanging call costs that test only.
"""
from __future__ import annotations

import atexit
import math
import os
import resource
import select
import subprocess
import sys
import time
from typing import Any

from anatomy.homework.attention_tests import frames
from anatomy.homework.attention_tests.server import TEST_OPS
from anatomy.homework.processes import end_process_group

START_SECONDS, MEMORY = 120.0, 6 << 30


class ServerFailed(Exception):
    """The implementation's process did not answer in time, died, or sent a malformed reply."""


def limited() -> None:  # the server's own limits: a test's huge input costs its process, not the grader's
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


class Server:
    def __init__(self) -> None:
        self.process: subprocess.Popen | None = None
        self.owner = os.getpid()  # in a fork of it (trial.py) poll() cannot see the process: a dead one reads as EOF

    def stopped(self) -> bool:
        return self.process is None or (os.getpid() == self.owner and self.process.poll() is not None)

    def start(self) -> None:
        self.owner = os.getpid()
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
               "LANG": "C.UTF-8", "HOME": os.environ.get("HOME", "/nonexistent")}
        self.process = subprocess.Popen([sys.executable, "-I", "-m", "anatomy.homework.attention_tests.server"],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        env=env, cwd="/", preexec_fn=limited, start_new_session=True)

    def request(self, message: dict, tensors: dict, deadline: float = math.inf) -> tuple[dict, dict]:
        """Send one frame, read its reply by `deadline` (time.monotonic()); ServerFailed otherwise."""
        if self.stopped():
            self.close()
            raise ServerFailed("stopped")
        done = False
        try:
            self.process.stdin.write(frames.pack(message, tensors))
            self.process.stdin.flush()
            out = self.process.stdout.fileno()

            def read(size: int) -> bytes:
                data = bytearray()
                while len(data) < size:
                    left = deadline - time.monotonic()
                    if left <= 0 or not select.select([out], [], [], None if math.isinf(left) else left)[0]:
                        raise ServerFailed("timeout")
                    chunk = os.read(out, min(size - len(data), 1 << 20))
                    if not chunk:
                        raise ServerFailed("stopped")
                    data += chunk
                return bytes(data)
            reply = frames.read_frame(read)
            done = True
            return reply
        except (OSError, ValueError) as error:
            raise ServerFailed(f"broken ({type(error).__name__})") from None
        finally:
            if not done:  # a timeout, a test's time limit firing mid-request, a dead process: start afresh
                self.close()

    def build(self, bug: str | None, seed: int) -> None:
        """The implementation `bug` (None: the correct one) for the next run, torch seeded with `seed`."""
        if self.process is None or self.process.poll() is not None:
            self.close()
            self.start()
        reply, _ = self.request({"op": "build", "bug": bug, "seed": int(seed)}, {}, time.monotonic() + START_SECONDS)
        if "error" in reply:
            raise RuntimeError(f"the implementation could not be built: {reply['error']}")

    def ask(self, message: dict, tensors: dict) -> tuple[dict, dict]:
        """A test's request (stand_in.Implementation's link); its time limit is the test's own."""
        return self.request(message, tensors) if message.get("op") in TEST_OPS else refused(message)

    def relay(self, message: Any, tensors: dict, deadline: float) -> tuple[dict, dict]:
        """What the grader's child asks for its test, forwarded when it is a test's op; by `deadline`."""
        if not isinstance(message, dict) or message.get("op") not in TEST_OPS:
            return refused(message)
        return self.request(message, tensors, deadline)

    def close(self) -> None:
        if self.process is not None:
            end_process_group(self.process, (self.process.stdin, self.process.stdout))
            self.process = None


def refused(message: Any) -> tuple[dict, dict]:
    op = message.get("op") if isinstance(message, dict) else None
    return {"error": {"type": "TypeError", "message": f"the implementation under test does not support {op!r}"}}, {}


_SHARED: list[Server] = []


def shared() -> Server:
    """This process's server (one at a time; closed when the process exits)."""
    if not _SHARED:
        _SHARED.append(Server())
        atexit.register(_SHARED[0].close)
    return _SHARED[0]
