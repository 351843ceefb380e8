"""Each trial of a homework-3 test (one test against one implementation) in a process of its own, for
notebook 19_homework_attention_tests.

`isolated(run, limits, lost)` forks this process, calls `run()` in the fork and reads back one line: None when it
returned, else "Type: message" of what it raised (clock.OVER_CPU past its CPU time, "timeout" on the clock, NO_LINE),
with the CPU seconds the fork used. The fork ends after the trial, so nothing the test changes in Python's memory (a
global, a default argument, a closure, an attribute of a class, an object or a module, an lru_cache) reaches the next
trial. In the grader's child, sealed (anatomy_grading/seal.py), the routes outside that memory that fork_state.py
lists are closed: no file can be written nor memory shared, no thread started; with `sealed` the fork can signal no
process outside it, speaks to the grader over a channel of trials alone, prints into a pipe of its own, closes every
other descriptor it inherited, leaves nothing in the child's counters (the child waits once per trial, on a pidfd),
and a trial does not start while the test's cell holds a signal handler or a thread; the cyclic garbage collector is
off here during a trial, and a trial that changed this process ends it. What a trial can still see of the ones
before: kernel-wide counters that any process moves (the inode numbers of new pipes and sockets), time (how long
they took), and its process id (its position); without pidfds (Linux < 5.3) the child looks every millisecond, and
its scheduler counters then count how long earlier trials took. In the fork no process or thread can start
(`no_new_processes`: RLIMIT_NPROC 0, enforced for every user but root, torch at one thread). `lost(code)` runs when
the fork ended without its line or at a limit (`code`: clock.LOST, LATE, SPENT): its link may hold half a request.
Sent to the grader's child as source (plan.py): standard library only; the child's tripwires allow os.fork from
`isolated` alone.
"""
from __future__ import annotations

import fcntl
import gc
import json
import os
import resource
import signal
import sys
import threading
from typing import Callable

from anatomy.homework.attention_tests.clock import (FIRED, LATE, LOST, OVER_CPU, SPENT, cpu_seconds, ended, limit_cpu,
                                                    parsed, plain)
from anatomy.homework.attention_tests.fork_state import (TAMPERED, changed, close_inherited, handlers_changed, log_output,
                                                         no_new_processes, output_pipe, process_state)

LINE = 4096  # the most of a fork's line the child reads: report's is a few hundred bytes
NO_LINE = "the run ended without its result"  # isolated's why (mutation.py words it)
THREAD_LEFT = "a thread your notebook started is still running in the grader ({threads}), and a cell must leave none running"


def report(write_end: int, run: Callable[[], None], cpu: float, sealed: dict | None = None, output: int = -1) -> None:
    """In the fork: run the trial within `cpu` seconds of CPU time (clock.py), write its line with the CPU time
    it used, end the process (never returns). `sealed` (the grader's child): scope the fork (seal.in_fork), make
    `output` its stdout and stderr, close the rest."""
    usage = resource.getrusage  # taken before the test runs, which cannot then replace what reports its CPU time
    try:
        try:
            no_new_processes()
            if sealed is not None:
                gc.enable()
                sealed["in_fork"]()
                for stream in (1, 2):
                    os.dup2(output, stream)
                close_inherited({1, 2, *sealed["keep"], write_end})
            limit_cpu(cpu)
            run()
            line: dict = {"why": None}
        finally:  # no OverLimit once the test is done
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.signal(signal.SIGPROF, signal.SIG_IGN)
    except BlockingIOError as error:  # its stdout's pipe is full (fork_state.OUTPUT, where the kernel allows it)
        size = fcntl.fcntl(1, fcntl.F_GETPIPE_SZ) >> 10 if hasattr(fcntl, "F_GETPIPE_SZ") else 64
        line = {"why": f"RuntimeError: the test printed more than a run may print ({size} KiB): {str(error)[:100]}"}
    except BaseException as error:  # a test's failure, also SystemExit or KeyboardInterrupt
        line = {"why": f"{type(error).__name__[:80]}: {str(error)[:200]}"}
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    used = cpu_seconds(usage)
    if FIRED or used >= cpu:  # its CPU time is spent (OverLimit raised, caught or not; getrusage may lag the timer)
        line = {"why": OVER_CPU}
    data = json.dumps(line | {"cpu": used}).encode()
    while data:
        data = data[os.write(write_end, data):]
    os._exit(0)


def isolated(run: Callable[[], None], limits: tuple[float, float], lost: Callable[[int], None],
             sealed: dict | None = None) -> tuple[str | None, float]:
    """`run()` in a fork of this process within `limits` (seconds of CPU time, on the clock): (None or why it failed,
    its CPU seconds); see the module. `sealed` ({"keep": the trials' channel, "in_fork": a callable, "log":
    seal.log_of's}, the grader's child): fork_state.py."""
    cpu, wall = limits
    for stream in (sys.stdout, sys.stderr):  # what was printed before must not be printed twice
        try:
            stream.flush()
        except Exception:
            pass
    if sealed is not None and handlers_changed():
        return "RuntimeError: signal handlers are switched off in the grader", 0.0
    if sealed is not None:  # the kernel reaps each fork: its page faults and CPU time never reach this process's counters
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    shared = tuple(sealed["keep"]) if sealed is not None else ()
    before, collecting = (process_state(shared), gc.isenabled()) if sealed is not None else (None, False)
    if collecting:
        gc.disable()  # the cyclic collector (and the finalizers it would call) stays off while a trial runs
    read_end, write_end = os.pipe()
    printed, output = output_pipe() if sealed is not None else (-1, -1)
    try:
        pid = os.fork()
    except BlockingIOError:  # the sealed child's RLIMIT_NPROC: a thread of the cell's holds the fork's place
        for fd in (read_end, write_end, printed, output):
            if fd >= 0:
                os.close(fd)
        if collecting:
            gc.enable()
        names = ", ".join(t.name for t in threading.enumerate() if t is not threading.main_thread())
        return "RuntimeError: " + THREAD_LEFT.format(threads=names or "not a threading.Thread"), 0.0
    if pid == 0:
        os.close(read_end)
        if printed >= 0:
            os.close(printed)
        try:
            report(write_end, run, cpu, sealed, output)
        finally:
            os._exit(1)
    os.close(write_end)
    if output >= 0:
        os.close(output)
    data, killed, line = b"", False, None
    try:
        if sealed is not None:
            done = ended(pid, wall)
            log_output(printed, sealed["log"])
            data = os.read(read_end, LINE) if done else b""
        else:
            done, data, killed = plain(pid, read_end, wall)
        line = (parsed(data, cpu) or {"why": OVER_CPU if killed else NO_LINE, "cpu": 0.0}) if done else \
            {"why": "timeout", "cpu": 0.0}
        return line["why"], line["cpu"]
    finally:
        os.close(read_end)
        if printed >= 0:
            os.close(printed)
        code = {OVER_CPU: SPENT, "timeout": LATE, NO_LINE: LOST}.get(line and line["why"], None if line else LOST)
        if code is not None:  # the link it spoke over may hold half a request
            lost(code)
        if before is not None and changed(before, process_state(shared)):  # the trial changed this process: no later one sees it
            os._exit(TAMPERED)
        if collecting:
            gc.enable()


FORKING = (isolated,)  # the grader's child lets these fork (anatomy_grading.tripwires.allow_fork)
