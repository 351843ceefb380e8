"""How long a homework-3 trial's fork may run, and the wait for its end (notebook 19_homework_attention_tests;
trial.py).

A test's time limit counts the processor time of the fork that runs it (its user and system time, from
/proc/<pid>/stat), not the clock: on a machine that runs other work beside the grader (a CI job, a batch on
two cores) an honest test's time on the clock can grow tenfold, its processor time does not. A test that
waits rather than computes (a sleep, a read that never returns) is stopped by the clock at WALL_FACTOR times
its limit. Where /proc is missing (macOS) the clock alone counts. The parent looks every SLICE seconds, so a
fork's processor time is known to within a SLICE (it ends between two looks).
Sent to the grader's child as source (plan.py): standard library only.
"""
from __future__ import annotations

import os
import select
import signal
import time

WALL_FACTOR, SLICE = 4, 0.05
LATE = 72  # the grader's child's exit code when a run's fork ran past its limit (checks.py words it)
TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def processor_seconds(pid: int) -> float | None:
    """The user + system time of process `pid` so far; None when it is gone or /proc cannot say."""
    try:
        handle = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
    except OSError:
        return None
    try:
        fields = os.read(handle, 1024).rsplit(b")", 1)[-1].split()  # the name, in parentheses, may hold spaces
    except OSError:
        return None
    finally:
        os.close(handle)
    return (int(fields[11]) + int(fields[12])) / TICK if len(fields) > 12 else None


class Watch:
    """One fork's time: `over()` once it has used more than `seconds` of processor time, or WALL_FACTOR
    times that on the clock (on the clock alone where /proc cannot say); `used` its processor seconds at
    the last look (the clock's, without /proc)."""

    def __init__(self, pid: int, seconds: float | None) -> None:
        self.pid, self.seconds, self.start, self.used = pid, seconds, time.monotonic(), 0.0
        self.counted = processor_seconds(pid) is not None

    def over(self) -> bool:
        wall = time.monotonic() - self.start
        found = processor_seconds(self.pid) if self.counted else None
        self.used = max(self.used, found if found is not None else 0.0 if self.counted else wall)
        return self.seconds is not None and (self.used > self.seconds or wall > WALL_FACTOR * self.seconds)


def ended(pid: int, seconds: float | None) -> tuple[bool, float]:
    """In the sealed child (SIGCHLD ignored before the fork, so that the kernel reaps it), after forking
    `pid`: wait for its end on a pidfd, looking at its time every SLICE (without pidfds, Linux < 5.3 or an
    older seccomp profile: whether it is gone, every millisecond). (True, its processor seconds) when it
    ended; (False, ...) when it ran past its limit (Watch): then it is killed, and waited for."""
    watch = Watch(pid, seconds)
    try:
        handle = os.pidfd_open(pid)
    except ProcessLookupError:  # it ended (and was reaped) before the handle
        return True, watch.used
    except (AttributeError, OSError):
        return polled(watch), watch.used
    try:
        while not select.select([handle], [], [], SLICE)[0]:
            if watch.over():
                signal.pidfd_send_signal(handle, signal.SIGKILL)
                select.select([handle], [], [])
                return False, watch.used
        return True, watch.used
    finally:
        os.close(handle)


def polled(watch: Watch) -> bool:
    """`ended` without a pidfd: whether the fork is gone (the kernel reaped it), asked every millisecond."""
    killed, looked = False, time.monotonic()
    while True:
        try:
            os.kill(watch.pid, 0)
        except ProcessLookupError:
            return not killed
        if not killed and time.monotonic() - looked >= SLICE:
            looked = time.monotonic()
            if watch.over():
                os.kill(watch.pid, signal.SIGKILL)
                killed = True
        time.sleep(0.001)
