"""What a homework-3 trial's fork shares with the grader's child, and so with the next trial's fork, and how
the sealed child (anatomy_grading/seal.py) keeps it from carrying one trial's results to the next
(notebook 19_homework_attention_tests; trial.py calls these where `sealed` is given, i.e. in that child):
- descriptors: the fork closes every one it inherited but its own (`close_inherited`): the channel the
  grader gave trials alone (never the child's own, so no fork can answer for the child; the grader ends
  the child when a fork left a question or an answer in it, anatomy_grading/connection.py, and the child
  ends itself when a fork changed its open-file state, `process_state`), its
  result pipe, and an output pipe of its own that becomes its stdout and stderr (`output_pipe`), which the
  child copies to the log after the fork ended, at most LOGGED bytes of it, in the kernel (`log_output`);
  so a pipe, a memfd or a log that the test's cell opened reaches no trial, and no trial sees the log's size;
- the child's counters: the kernel reaps each fork (SIGCHLD ignored), so no fork's page faults or CPU time
  add to the child's (/proc/1/stat), and the child sleeps once on the fork's pidfd (clock.ended) rather than
  waking for each thing the fork writes or to look at it, so its own counters move by the same amount each trial;
- the process itself: a fork can change its parent's resource limits or its threads' priority, CPUs or
  scheduling, or leave a signal pending there, and a later fork could see that. `process_state()` is taken
  before each trial and compared after it: a trial that changed it ends the child (TAMPERED, its exit
  code), so no later trial of that child sees the change (where the child runs one thread, the cell can start none: seal.py);
- signal handlers: one that the test's cell installed would run in the child, whose memory every later
  fork copies. `handlers_changed()` compares them with those at this module's import, before the
  student's first line ran; a trial does not start while they differ.
Sent to the grader's child as source (plan.py): standard library only.
"""
from __future__ import annotations

import fcntl
import os
import resource
import signal
import sys

TAMPERED = 71  # the child's exit code when a trial changed it (anatomy_grading/grader.py words it)
OUTPUT, LOGGED = 1 << 20, 4 << 10  # what one run may print (its pipe's size), and how much of it the log keeps
LIMITS = tuple(sorted(name for name in dir(resource) if name.startswith("RLIMIT_")))


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


def close_inherited(keep: set[int]) -> None:
    """In the fork: close every open descriptor but `keep` (listed in /proc/self/fd, whatever the limits say)."""
    try:
        open_now = [int(fd) for fd in os.listdir("/proc/self/fd")]
    except OSError:  # no /proc: every number up to the larger limit
        open_now = list(range(max(resource.getrlimit(resource.RLIMIT_NOFILE))))
    for fd in open_now:
        if fd not in keep:
            try:
                os.close(fd)
            except OSError:  # the folder listing's own descriptor, already closed
                pass


def signal_handlers() -> tuple:  # but SIGCHLD's, which a sealed trial sets to SIG_IGN itself (trial.isolated)
    return tuple(signal.getsignal(number) for number in sorted(signal.valid_signals()) if number != signal.SIGCHLD)


HANDLERS = signal_handlers()  # at import: in the grader's child, before the student's first line ran


def handlers_changed() -> bool:
    return signal_handlers() != HANDLERS


def process_state(shared: tuple[int, ...] = ()) -> tuple:
    """What a fork could change in this process from outside and a later fork could see: resource limits,
    pending signals, the open-file state of the descriptors every fork shares (`shared`: the trials'
    channel; its flags, signal, owner and pipe size), and each thread's priority, CPUs and scheduling policy."""
    try:
        threads = sorted(int(tid) for tid in os.listdir("/proc/self/task"))
    except OSError:  # no /proc: this thread
        threads = [0]
    per_thread = {tid: (os.getpriority(os.PRIO_PROCESS, tid),
                        frozenset(os.sched_getaffinity(tid)) if hasattr(os, "sched_getaffinity") else None,
                        os.sched_getscheduler(tid) if hasattr(os, "sched_getscheduler") else None) for tid in threads}
    files = tuple(tuple(fcntl.fcntl(fd, getattr(fcntl, name)) for name in ("F_GETFL", "F_GETSIG", "F_GETOWN", "F_GETPIPE_SZ")
                        if hasattr(fcntl, name)) for fd in shared)
    return (tuple(resource.getrlimit(getattr(resource, name)) for name in LIMITS), frozenset(signal.sigpending()), files,
            per_thread)


def changed(before: tuple, after: tuple) -> bool:
    """Whether process_state moved: limits, pending signals, shared descriptors, or a thread that lived through
    it (a library's thread that started or ended meanwhile is not a change)."""
    return before[:3] != after[:3] or any(after[3][tid] != state for tid, state in before[3].items() if tid in after[3])

def output_pipe() -> tuple[int, int]:
    """A pipe for one fork's stdout and stderr: OUTPUT bytes deep where the kernel allows it, and a write
    end that never blocks (past it, the test's print raises BlockingIOError: trial.report words it)."""
    read_end, write_end = os.pipe()
    try:
        fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, OUTPUT)
    except (AttributeError, OSError):  # an older kernel or a lower /proc/sys/fs/pipe-max-size: 64 KiB
        pass
    os.set_blocking(write_end, False)
    return read_end, write_end


_COPY = memoryview(bytearray(LOGGED))  # allocated once: copying a run's output allocates nothing that grows with it


def log_output(read_end: int, log: tuple[int, tuple[int, int]]) -> None:
    """After a sealed fork ended: the first LOGGED bytes of what it printed, from its pipe to the log
    (the rest dies with the pipe), through one buffer of fixed size."""
    descriptor, identity = log
    found = os.fstat(descriptor)
    if (found.st_dev, found.st_ino) != identity:  # the test's cell moved another file onto it: not logged
        return
    try:
        size, done = os.readv(read_end, [_COPY]), 0
        while done < size:
            done += os.write(descriptor, _COPY[done:size])
    except OSError:  # nothing in the pipe, or the log at its size limit
        pass
