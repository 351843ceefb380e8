"""How long a homework-3 trial's fork may run (notebook 19_homework_attention_tests; trial.py).

A run's limit counts the CPU time of the fork that runs the test, not the clock: on a machine that runs other
work beside the grader (a CI job, a batch on two cores) an honest run's time on the clock can grow tenfold, its
CPU time hardly grows. The kernel counts it: in the fork, before the test, `limit_cpu` sets a profiling timer (its
signal ends the run with OverLimit) and RLIMIT_CPU a second later (the kernel's SIGKILL, for a run that outlasts
the signal, e.g. inside one long native call); a run that used its CPU time is OVER_CPU whatever it caught. A run
that waits rather than computes is stopped by the clock ("timeout"): the parent's one wait, at WALL_FACTOR times
the limit (`ended` in the grader's child, `plain` outside it); a question's runs stop at QUESTION_FACTOR times its
CPU budget. The parent does not look at the fork meanwhile: each look would wake it, and its own counters would
then count how long a run took. Every run gets the same limits, whatever the runs before it did (what it can read
of them, its timer and RLIMIT_CPU, must tell it nothing of them). The fork reports the CPU time it used in its line:
its own claim, which a test could understate; it only decides when the question's CPU budget is spent, and the
question's clock bounds that. Sent to the grader's child as source (plan.py): standard library only.
"""
from __future__ import annotations

import json
import math
import os
import resource
import select
import signal
import time
from typing import Callable

WALL_FACTOR, QUESTION_FACTOR = 4, 2  # a run's, and a question's, limit on the clock, in multiples of its CPU time
OVER_CPU = "timeout (CPU time)"  # a run's why when it used its CPU time; "timeout" when the clock stopped it
LOST, LATE, SPENT = 70, 72, 73  # the grader's child's exit code when a run ended without its line, on the clock, or
# past its CPU time (checks.py words each)


class OverLimit(BaseException):
    """A run used its CPU time (the profiling timer's signal)."""


FIRED: list[bool] = []  # in the fork: the timer's signal came (the run is over its CPU time, whatever it caught)


def over_limit(signum: int, frame: object) -> None:
    FIRED.append(True)
    raise OverLimit


def limit_cpu(seconds: float) -> None:
    """In the fork, before the test: OverLimit after `seconds` of CPU time, the kernel's SIGKILL a second later."""
    signal.signal(signal.SIGPROF, over_limit)
    signal.setitimer(signal.ITIMER_PROF, max(seconds, 0.001))
    used = resource.getrusage(resource.RUSAGE_SELF)
    hard, inherited = math.ceil(used.ru_utime + used.ru_stime + seconds) + 1, resource.getrlimit(resource.RLIMIT_CPU)[1]
    hard = hard if inherited == resource.RLIM_INFINITY else min(hard, inherited)  # a hard limit can only come down
    resource.setrlimit(resource.RLIMIT_CPU, (hard, hard))


def cpu_seconds(usage: Callable = resource.getrusage) -> float:
    """This process's CPU time (user and system) so far."""
    used = usage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


def parsed(data: bytes, limit: float) -> dict | None:
    """The fork's line, or None when it is none: "why" None or a string, "cpu" a number from 0 to its limit + 2."""
    try:
        line = json.loads(data)
        why, used = line["why"], float(line["cpu"])
    except (ValueError, KeyError, TypeError, RecursionError):
        return None
    fits = (why is None or isinstance(why, str)) and 0.0 <= used <= limit + 2.0  # NaN fits nothing
    return {"why": why, "cpu": used} if fits else None


def ended(pid: int, seconds: float | None) -> bool:
    """In the sealed child (SIGCHLD ignored before the fork, so that the kernel reaps it), after forking
    `pid`: wait once for its end on a pidfd, which wakes this process once whatever the fork does meanwhile
    (without pidfds, Linux < 5.3 or an older seccomp profile: whether it is gone, every millisecond); False
    when `seconds` on the clock ran out first (then it is killed, and waited for)."""
    try:
        handle = os.pidfd_open(pid)
    except ProcessLookupError:  # it ended (and was reaped) before the handle
        return True
    except (AttributeError, OSError):
        return polled(pid, seconds)
    try:
        if select.select([handle], [], [], seconds)[0]:
            return True
        signal.pidfd_send_signal(handle, signal.SIGKILL)
        select.select([handle], [], [])
        return False
    finally:
        os.close(handle)


def polled(pid: int, seconds: float | None) -> bool:
    """`ended` without a pidfd: whether `pid` is gone (the kernel reaped it), asked every millisecond."""
    deadline, killed = math.inf if seconds is None else time.monotonic() + seconds, False
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return not killed
        if not killed and time.monotonic() >= deadline:
            os.kill(pid, signal.SIGKILL)
            killed = True
        time.sleep(0.001)


def plain(pid: int, read_end: int, seconds: float | None) -> tuple[bool, bytes, bool]:
    """Outside the grader's child: read the fork's line by `seconds` on the clock, then wait for it (killed when
    late): (whether it ended in time, its line, whether the kernel killed it: RLIMIT_CPU)."""
    data, deadline, done = b"", None if seconds is None else time.monotonic() + seconds, False
    try:
        while True:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and (left <= 0 or not select.select([read_end], [], [], left)[0]):
                return False, data, False
            chunk = os.read(read_end, 1 << 16)
            if not chunk:
                break
            data += chunk
        _, status = os.waitpid(pid, 0)
        done = True
        return True, data, os.WIFSIGNALED(status) and os.WTERMSIG(status) in (signal.SIGKILL, signal.SIGXCPU)
    finally:
        if not done:  # its time ran out, or the wait was interrupted: the fork ends now
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(pid, 0)
