"""Each trial of a homework-3 test (one test against one implementation) in a process of its own, for
notebook 19_homework_attention_tests.

`isolated(run, seconds, lost)` forks this process, calls `run()` in the fork and reads back one line: None
when it returned, else "Type: message" of what it raised ("timeout" past `seconds`). The fork ends after the
trial, so nothing the test changes in Python's memory (a global, a default argument, a closure, an attribute
of a class, an object or a module, an lru_cache) reaches the next trial: every trial starts from the state the
process had before the first. In the grader's child, sealed (anatomy_grading/seal.py), nothing outside that
memory does by most routes: no file can be written nor memory shared (nor a thread started, with a uid of
its own); with `sealed` the fork
can signal no process outside it, its stdout and stderr are the grader's log (appended to, never read
back), it closes every other descriptor it inherited, a trial does not start while the test's cell holds a
signal handler, the cyclic garbage collector is off here during a trial, and one that changed this process
ends it (fork_state.py). Still open: the shared log's size and this process's page-fault and CPU counters,
which a fork can pad (instructor/README.md); the fork's process id tells a test at most its position. In
the fork no process or thread can start (`no_new_processes`: RLIMIT_NPROC 0, which the kernel enforces for every
user but root, torch at one thread). `lost()` runs when the fork ended without its line (killed at its time limit, crashed):
the link it spoke over may hold half a request. Sent to the grader's child as source (plan.py): standard
library only; the child's tripwires allow os.fork from `isolated` alone.
"""
from __future__ import annotations

import gc
import json
import os
import resource
import select
import signal
import sys
import time
from typing import Callable

from anatomy.homework.attention_tests.fork_state import TAMPERED, changed, close_inherited, handlers_changed, process_state


def no_new_processes() -> None:
    """In the fork: torch at one thread, then no process or thread may start (a test's fork_exec, a fork
    bomb): RLIMIT_NPROC 0, soft and hard, so the test cannot raise it again; root is exempt (the grader's
    child never runs as root: sandbox.py gives it a uid of its own)."""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)  # its thread pool would need new threads in the fork
    try:
        resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
    except (ValueError, OSError):  # a platform without it
        pass


def report(write_end: int, run: Callable[[], None], sealed: dict | None = None) -> None:
    """In the fork: run the trial, write its line, end the process (never returns). `sealed` (the grader's
    child): scope the fork (seal.in_fork), make the grader's log its stdout and stderr, close the rest."""
    try:
        no_new_processes()
        if sealed is not None:
            gc.enable()
            sealed["in_fork"]()
            log, identity = sealed["log"]
            found = os.fstat(log)
            if (found.st_dev, found.st_ino) != identity:
                raise RuntimeError("the grader's log was replaced")
            for stream in (1, 2):
                os.dup2(log, stream)
            close_inherited({0, 1, 2, *sealed["keep"], write_end})
        run()
        line = {"why": None}
    except BaseException as error:  # a test's failure, also SystemExit or KeyboardInterrupt
        line = {"why": f"{type(error).__name__}: {str(error)[:200]}"}
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    data = json.dumps(line).encode()
    while data:
        data = data[os.write(write_end, data):]
    os._exit(0)


def isolated(run: Callable[[], None], seconds: float | None, lost: Callable[[], None],
             sealed: dict | None = None) -> str | None:
    """`run()` in a fork of this process: None when it returned, else why it failed; see the module.
    `sealed` ({"keep": descriptors, "in_fork": a callable, "log": seal.log_of's}, the grader's child): see
    fork_state.py."""
    for stream in (sys.stdout, sys.stderr):  # what was printed before must not be printed twice
        try:
            stream.flush()
        except Exception:
            pass
    if sealed is not None and handlers_changed():
        return "RuntimeError: signal handlers are switched off in the grader"
    before, collecting = (process_state(), gc.isenabled()) if sealed is not None else (None, False)
    if collecting:
        gc.disable()  # the cyclic collector (and the finalizers it would call) stays off while a trial runs
    read_end, write_end = os.pipe()
    try:
        pid = os.fork()
    except BlockingIOError:  # the sealed child's RLIMIT_NPROC: a thread of the cell's holds the fork's place
        os.close(read_end)
        os.close(write_end)
        if collecting:
            gc.enable()
        return "RuntimeError: starting a thread is switched off in the grader"
    if pid == 0:
        os.close(read_end)
        try:
            report(write_end, run, sealed)
        finally:
            os._exit(1)
    os.close(write_end)
    data, ended, deadline = b"", False, None if seconds is None else time.monotonic() + seconds
    try:
        while True:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and (left <= 0 or not select.select([read_end], [], [], left)[0]):
                return "timeout"
            chunk = os.read(read_end, 1 << 16)
            if not chunk:
                break
            data += chunk
        os.waitpid(pid, 0)
        ended = True
        try:
            return json.loads(data)["why"]
        except (ValueError, KeyError, TypeError):
            return "RuntimeError: the test ended its own process"
    finally:
        os.close(read_end)
        if not ended:  # its time ran out, or the wait was interrupted: the fork ends now
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(pid, 0)
        if not ended or not data:
            lost()
        if before is not None and changed(before, process_state()):  # the trial changed this process: no later one sees it
            os._exit(TAMPERED)
        if collecting:
            gc.enable()


FORKING = (isolated,)  # the grader's child lets these fork (anatomy_grading.tripwires.allow_fork)
