"""The parent's end of one child process: start it, send requests, read replies within a deadline.

A request is one wire frame written to the child's stdin; its reply is one frame read from a pipe of its own, so
nothing the student prints can pass for a reply (prints go to a log file the parent owns, of which instructors see
the last 4 KiB of each child's: runner.py). Every reply must arrive before its deadline: a child that runs past it,
dies, or sends a malformed frame is killed (with its whole process group, its pid namespace, and every process of its
uid), and the call that was waiting raises ChildFailed with a plain reason. A reply's lengths are checked against the
reply caps before anything is read, and the buffers grow only with the bytes that actually arrive. While a call runs,
the child may ask a question of its own (homework 3's tests asking their implementation); `relay` answers it. A
sealed child (homework 3) gets a second channel, for its trials' forks alone (`trials`): they never hold the child's
own, so none can send a reply for it, and when a reply comes (every fork has ended by then) a question or an answer
still in that channel means a fork left it there for the next: the child is ended ("tampered").
"""
from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import torch

from anatomy.homework.processes import end_process_group
from anatomy_grading import reading, sandbox, uids, wire

SHIPPED = ("wire", "shipping", "seal", "tripwires", "poison", "stubs", "qualname", "blocks", "reach", "handles", "child")  # the modules the child runs, sent as source


class ChildFailed(BaseException):
    """The child did not answer: it timed out, died or broke the protocol (the message says which).
    A BaseException, so that a check's `except Exception` (which turns a student's crash into
    feedback) lets it through to the grader, which scores the question 0 and starts a fresh child."""


class Child:
    def __init__(self, setup: dict, confinement: dict, start_timeout: float = 120.0) -> None:
        self.log = tempfile.TemporaryFile()
        self.work, self.uid = None, confinement["uid"]
        self.relay = None  # (question, tensors, deadline) -> (answer, tensors): who answers what the child asks
        if confinement["work"] is None:  # no fresh /tmp of its own: a private folder made here
            self.work = tempfile.mkdtemp(prefix="grading-")
            if confinement["uid"] is not None:
                os.chown(self.work, confinement["uid"], confinement["uid"])
            confinement = confinement | {"work": self.work}
        reply_read, reply_write = os.pipe()
        self.replies, passed, self.trials = reply_read, [reply_write], ()
        if setup.get("sealed"):  # (questions from a trial's fork, answers to it): the grader's ends
            (asks, asked), (answered, answers) = os.pipe(), os.pipe()
            self.trials, passed, setup = (asks, answers), passed + [asked, answered], setup | {"trials": [asked, answered]}
        threads = int(setup["threads"])
        try:  # the child may append to its log, not read it (a test's thread or fork would read earlier runs there)
            log = os.open(f"/proc/self/fd/{self.log.fileno()}", os.O_WRONLY | os.O_APPEND)
        except OSError:  # no /proc
            log = os.dup(self.log.fileno())
        self.process = subprocess.Popen(sandbox.command(confinement), stdin=subprocess.PIPE, stdout=log,
                                        stderr=subprocess.STDOUT, pass_fds=tuple(passed), start_new_session=True,
                                        env=sandbox.environment(threads), cwd="/", preexec_fn=uids.die_with_parent)
        for fd in (*passed, log):
            os.close(fd)
        here = Path(__file__).parent
        boot = json.dumps({"modules": [[f"anatomy_grading.{m}", (here / f"{m}.py").read_text()] for m in SHIPPED],
                           "setup": setup | confinement | {"reply_fd": reply_write}}).encode()
        self.process.stdin.write(f"{len(boot)}\n".encode() + boot)
        self.process.stdin.flush()
        os.set_blocking(self.process.stdin.fileno(), False)
        ready, _ = self.receive(time.monotonic() + start_timeout, "starting")
        if "fatal" in ready:
            self.close()
            raise RuntimeError(f"the grading child could not start (an instructor error): {ready['fatal']}")
        self.poisoned: list[str] = ready["poisoned"]
        self.sealed: list[str] = [f"sealed: {ready['sealed']}"] if ready.get("sealed") else []

    def request(self, message: dict, tensors: dict[str, torch.Tensor], timeout: float,
                late: str | None = None) -> tuple[dict, dict]:
        deadline, late = time.monotonic() + timeout, late or f"did not finish within {timeout:.0f} s"
        if self.process.poll() is not None or self.process.stdin.closed:
            self.fail("stopped")
        self.write(message, tensors, deadline, late)
        return self.receive(deadline, late)

    def write(self, message: dict, tensors: dict[str, torch.Tensor], deadline: float, late: str, fd: int = -1) -> None:
        data, fd = memoryview(wire.pack(message, tensors)), self.process.stdin.fileno() if fd < 0 else fd
        while data:
            if not select.select([], [fd], [], max(0.0, deadline - time.monotonic()))[1]:
                self.fail(late)
            try:
                data = data[os.write(fd, data):]
            except (BrokenPipeError, OSError):
                self.fail("stopped")

    def receive(self, deadline: float, late: str) -> tuple[dict, dict]:
        """The reply; a question the child or a trial's fork asks first ({"ask": ...}) goes to `relay`, its answer
        back the way it came, by the same deadline (a relay that fails, e.g. homework 3's implementation running
        past it, ends the child)."""
        while True:
            source = self.replies
            if self.trials:
                ready = select.select([self.replies, self.trials[0]], [], [], max(0.0, deadline - time.monotonic()))[0]
                source = ready[-1] if ready else self.replies
            message, tensors = self.frame(deadline, late, source)
            if "ask" not in message:
                if source != self.replies or any(reading.unread(fd) for fd in self.trials):
                    self.fail("tampered")
                return message, tensors
            try:
                answer = self.relay(message["ask"], tensors, deadline) if self.relay else \
                    ({"error": {"type": "TypeError", "message": "nothing to ask here"}}, {})
            except Exception as error:  # noqa: BLE001 (the relay's process timed out: this call ran past its limit; or died)
                self.fail(late if str(error) == "timeout" else f"its relay failed ({str(error)[:80]})")
            self.write(*answer, deadline, late, self.trials[1] if source != self.replies else -1)

    def frame(self, deadline: float, late: str, source: int) -> tuple[dict, dict]:
        try:
            return reading.frame(source, deadline)
        except reading.Late:
            self.fail(late)
        except EOFError:
            self.fail("stopped")
        except Exception as error:  # over the caps, not JSON, too deeply nested, a forged safetensors header...
            self.fail(f"sent a malformed reply ({type(error).__name__})")

    def fail(self, reason: str):
        try:  # its pipe closed as it ended: its exit code follows soon (homework 3's TAMPERED says why)
            code = self.process.wait(timeout=2) if reason == "stopped" else self.process.poll()
        except subprocess.TimeoutExpired:
            code = None
        self.close()
        if reason == "stopped" and code is not None:
            reason = f"stopped (exit code {code})"
        raise ChildFailed(reason)

    def log_tail(self, size: int = 64 << 10) -> str:
        self.log.seek(0, os.SEEK_END)
        self.log.seek(max(0, self.log.tell() - size))
        return self.log.read().decode(errors="replace")

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def close(self) -> None:
        end_process_group(self.process, (self.replies, self.process.stdin, *self.trials))
        self.replies, self.trials = -1, ()  # closed: their numbers may be reused, so a second close must not close them again
        uids.end_uid(self.uid)  # whatever it started, even outside its process group, ends with it
        if self.work:
            shutil.rmtree(self.work, ignore_errors=True)
            self.work = None

