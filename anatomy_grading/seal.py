"""A sealed child: most ways from one homework-3 trial to a later one closed (what is still open: trial.py).

Homework 3 runs each test once per trial in a fork of the child (trial.py); Python's memory dies with the
fork, but a file would not, and a test that kept the outputs it saw in a file could learn the correct
code's outputs by majority over the trials. So a group with `sealed=True` (plan.py) is sealed after
`child.prepare` imported its libraries and before the first line of the student's notebook runs:
1. Landlock (Linux 5.13 or later), in the kernel, so for native code too: a ruleset that handles every
   write right the running kernel knows (WRITE_RIGHTS, as far as its ABI has them) and allows none of
   them anywhere, applied to the child and every process it forks. No file can then be opened for
   writing, created, removed, renamed, linked or truncated. Descriptors opened before (its stdout, its
   pipes) stay writable. `landlock()` says whether it held; `held` in the grader's result says so too.
2. The tripwire (`refuses`, Python calls, whether or not Landlock held): what Landlock does not cover
   (a file's times, mode, owner, extended attributes; a memory map, whose anonymous kind every later fork
   would share) and, as a second layer where a kernel has no Landlock, the same writes; the native ones
   (torch.from_file, shared tensors) it does not see, so the grader flags every result then (runner.py).
   The page cache and memfd inode numbers keep no mark for a later run (`kernel_quiet`).
   RLIMIT_NPROC (the kernel, with a uid of its own; the child runs one thread: runner.py) leaves room for
   one trial's fork: a thread the cell left running would run beside the trials, in the memory each fork
   copies, so it takes the fork's place and every trial says so (trial.py). torch.set_num_threads keeps
   torch at one thread (a cell's wish goes to the log), since its pool's threads would be such threads.
3. Each trial's fork (`in_fork`) enters a Landlock domain of its own, below the child's, so that it can
   read nothing of the child that needs ptrace's permission (/proc/1/io, /proc/1/fd, /proc/1/mem), and, from
   ABI 6, scoped: it can send no signal to the child nor reach an abstract unix socket there (where the
   ABI is older, fork_state.py's checks of handlers and pending signals stand alone).
   anatomy/homework/attention_tests/fork_state.py closes the rest: inherited descriptors, the log, the
   child's counters, limits, priority and handlers.
Sent to the child as source: standard library only.
"""
from __future__ import annotations

import ctypes
import os
import resource
import struct
import sys
from typing import Callable

CREATE_RULESET, RESTRICT_SELF, ASK_VERSION = 444, 446, 1  # syscall numbers (the same on every architecture)
SCOPES = (1 << 0) | (1 << 1)  # ABI 6: no abstract unix socket, no signal, to a process outside the domain
WRITE_RIGHTS = {1: (1 << 1) | (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7) | (1 << 8) | (1 << 9) | (1 << 10) | (1 << 11)
                   | (1 << 12),  # ABI 1: write a file, remove a folder or file, make char/dir/reg/sock/fifo/block/sym
                2: 1 << 13, 3: 1 << 14}  # ABI 2: link or rename across folders (refer); ABI 3: truncate
MESSAGE = "writing files is switched off in the grader"  # = the catalogue's "files_sealed" in English
KERNEL = "this call is switched off in the grader: it leaves a mark in the kernel that a later run could read"  # "kernel_refused"
WRITING = ("os.mkdir", "os.rename", "os.remove", "os.rmdir", "os.link", "os.symlink", "os.truncate", "os.utime",
           "os.chmod", "os.chown", "os.chflags", "os.lchflags", "os.setxattr", "os.removexattr", "shutil.", "tempfile.")
_sealed: list[bool] = []
_scope: list[tuple] = []  # (libc's syscall, a scoped ruleset's fd) for in_fork: a call through a function
# found before the audit hook raises no event (a new one would: ctypes.dlsym); private, so the review refuses it


def landlock() -> str:
    """Restrict this process and its future forks to no file writes; how it went, in words. Needs
    PR_SET_NO_NEW_PRIVS (child.confine sets it) and must run before the audit hook (ctypes)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    version = libc.syscall(ctypes.c_long(CREATE_RULESET), None, ctypes.c_long(0), ctypes.c_long(ASK_VERSION))
    if version < 1:
        return f"no Landlock in this kernel (errno {ctypes.get_errno()}): only the tripwire refuses writes"
    handled = sum(rights for abi, rights in WRITE_RIGHTS.items() if abi <= version)
    attr = ctypes.create_string_buffer(struct.pack("=Q", handled))
    ruleset = libc.syscall(ctypes.c_long(CREATE_RULESET), attr, ctypes.c_long(len(attr.raw)), ctypes.c_long(0))
    if ruleset < 0:
        return f"Landlock refused the ruleset (errno {ctypes.get_errno()}): only the tripwire refuses writes"
    try:
        if libc.syscall(ctypes.c_long(RESTRICT_SELF), ctypes.c_long(ruleset), ctypes.c_long(0)) != 0:
            return f"Landlock could not restrict the child (errno {ctypes.get_errno()}): only the tripwire refuses writes"
    finally:
        libc.close(ctypes.c_int(ruleset))
    fork_rules = struct.pack("=QQQ", handled, 0, SCOPES) if version >= 6 else struct.pack("=Q", handled)
    scoped = libc.syscall(ctypes.c_long(CREATE_RULESET), ctypes.create_string_buffer(fork_rules),
                          ctypes.c_long(len(fork_rules)), ctypes.c_long(0))
    if scoped >= 0:
        _scope.append((libc.syscall, scoped))
    if scoped < 0 or version < 6:
        return f"no file writes (Landlock ABI {version}, kernel-enforced); a trial may still signal the child"
    return f"no file writes, no signal out of a trial (Landlock ABI {version}, kernel-enforced)"


def in_fork() -> None:
    """In a trial's fork (trial.report): a Landlock domain of its own, below the child's (no ptrace of the child,
    so none of its /proc files that need it), and from ABI 6 scoped, so that the trial can signal no process
    outside it (the child, whose memory the next fork copies, included) nor reach its abstract sockets."""
    if _scope and _scope[0][0](RESTRICT_SELF, _scope[0][1], 0) != 0:
        raise RuntimeError("the grader could not scope this run (Landlock)")


def seal(own_uid: bool) -> str:
    """Seal this process (see the module); from now on `refuses` answers for the tripwire. `own_uid`: the
    child's uid is its own (the grader runs as root), so RLIMIT_NPROC counts the child's tasks alone."""
    held = landlock()
    _sealed.append(True)
    sys.dont_write_bytecode = True  # a later import's .pyc would be a write
    if own_uid:  # its threads now, and one trial's fork at a time: no thread of the cell's runs beside a trial
        tasks = len(os.listdir("/proc/self/task")) + 1
        resource.setrlimit(resource.RLIMIT_NPROC, (tasks, tasks))
        held += f"; no new thread ({tasks - 1} running, RLIMIT_NPROC {tasks})"
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads = one_thread(torch.set_num_threads)
    kernel_quiet()
    return held


def kernel_quiet() -> None:
    """Marks a run could leave in the kernel for a later run to read: the page cache (a page read or dropped,
    posix_fadvise, which a later preadv with RWF_NOWAIT tells without waiting for the disk) and memfd inode
    numbers (k memfds made now move the next run's by k): preadv takes no flags, posix_fadvise and memfd_create
    raise. And tqdm's monitor thread, which outlives every bar and would hold the trials' place, is off."""
    import posix
    preadv = posix.preadv

    def plain_preadv(fd: int, buffers: list, offset: int, flags: int = 0) -> int:
        if flags:
            raise RuntimeError(KERNEL)
        return preadv(fd, buffers, offset)

    def refused(*args: object) -> None:
        raise RuntimeError(KERNEL)
    for module in (os, posix):
        module.preadv, module.posix_fadvise, module.memfd_create = plain_preadv, refused, refused
    try:
        import tqdm
        tqdm.tqdm.monitor_interval = 0
    except ImportError:
        pass

def one_thread(set_num_threads: Callable[[int], None]) -> Callable[[int], None]:
    """torch.set_num_threads in a sealed child: one thread whatever is asked (a pool's thread would hold the
    trials' place), said in the log when a cell asks for more."""
    def set_threads(count: int) -> None:
        if count != 1:
            print(f"torch.set_num_threads({count}) ignored: the grader runs torch at one thread", file=sys.stderr)
        set_num_threads(1)
    return set_threads


def refuses(event: str, args: tuple) -> str | None:
    """Why a sealed child refuses this audit event (a write to a named file, a change to its metadata), else None."""
    if not _sealed:
        return None
    if event == "open":
        return MESSAGE if not isinstance(args[0], int) and writes(args[1], args[2]) else None
    if event == "mmap.__new__":  # file-backed, or anonymous and shared with every later fork
        return MESSAGE
    return MESSAGE if event.startswith(WRITING) else None


def log_of(fd: int) -> tuple[int, tuple[int, int]]:
    """A copy of descriptor `fd` (the child's log, which it may append to and not read: connection.py) and
    its file's identity, for each trial's fork to check before it makes it its stdout and stderr (trial.py)."""
    found = os.fstat(fd)
    return os.dup(fd), (found.st_dev, found.st_ino)


def writes(mode: object, flags: object) -> bool:
    """Whether an "open" event (open(): mode and flags; os.open(): flags) may write, create or truncate."""
    if isinstance(flags, int):
        return bool(flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND))
    return isinstance(mode, str) and any(c in mode for c in "wax+")
