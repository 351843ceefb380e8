"""What a homework-3 trial's fork shares with the grader's child, and so with the next trial's fork, and how
the sealed child (anatomy_grading/seal.py) keeps it from carrying one trial's results to the next
(notebook 19_homework_attention_tests; trial.py calls these where `keep` is given, i.e. in that child):
- descriptors: the fork closes every one it inherited but its channel (`close_inherited`), and its stdout
  and stderr become the grader's log, which the child may append to and not read (trial.py checks it is
  still that file), so a pipe, a memfd or a log that the test's cell opened, moved or replaced reaches no trial;
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

import os
import resource
import signal

TAMPERED = 71  # the child's exit code when a trial changed it (anatomy_grading/grader.py words it)
LIMITS = tuple(sorted(name for name in dir(resource) if name.startswith("RLIMIT_")))


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


def signal_handlers() -> tuple:
    return tuple(signal.getsignal(number) for number in sorted(signal.valid_signals()))


HANDLERS = signal_handlers()  # at import: in the grader's child, before the student's first line ran


def handlers_changed() -> bool:
    return signal_handlers() != HANDLERS


def process_state() -> tuple:
    """What a fork could change in this process from outside and a later fork could see: resource limits,
    pending signals, and each thread's priority, CPUs and scheduling policy."""
    try:
        threads = sorted(int(tid) for tid in os.listdir("/proc/self/task"))
    except OSError:  # no /proc: this thread
        threads = [0]
    per_thread = {tid: (os.getpriority(os.PRIO_PROCESS, tid),
                        frozenset(os.sched_getaffinity(tid)) if hasattr(os, "sched_getaffinity") else None,
                        os.sched_getscheduler(tid) if hasattr(os, "sched_getscheduler") else None) for tid in threads}
    return tuple(resource.getrlimit(getattr(resource, name)) for name in LIMITS), frozenset(signal.sigpending()), per_thread


def changed(before: tuple, after: tuple) -> bool:
    """Whether process_state moved: limits, pending signals, or a thread that lived through it (a library's
    thread that started or ended meanwhile is not a change)."""
    return before[:2] != after[:2] or any(after[2][tid] != state for tid, state in before[2].items() if tid in after[2])
