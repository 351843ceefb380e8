"""The uids the grader's children run as (where the grader runs as root), and how everything a child
started ends with it. Each grading process claims, per slot, a uid no other grading process uses
(FIRST_UID + the first free of UIDS, held by a lock file for the process's life); RLIMIT_NPROC then
counts that child alone. When a child ends, every process of its uid is killed (a forked helper
drops to the uid and signals -1), not a list of PIDs; where no mount namespace gave the child fresh
world-writable folders, the files that uid left there are deleted. die_with_parent makes a child
die with the grading process, however that dies.
"""
from __future__ import annotations

import ctypes
import functools
import os
from pathlib import Path

from anatomy_grading import sandbox

FIRST_UID, UIDS = 62000, 1000
_claimed: list = []  # the open lock files of this process's uids


@functools.lru_cache(maxsize=None)
def own_uid(slot: int = 0) -> int | None:
    """The uid of this process's children in `slot` (one child at a time per slot; root only, else
    None): 62000 + the first number of UIDS whose lock file (in a root-only folder) no other grading
    process or slot holds. Whatever that uid still runs or left behind (a grader that was killed) is
    ended first."""
    if os.geteuid() != 0:
        return None
    import fcntl
    import tempfile

    folder = Path("/run" if os.access("/run", os.W_OK) else tempfile.gettempdir()) / "anatomy-grading-uids"
    folder.mkdir(mode=0o700, exist_ok=True)
    for number in range(UIDS):
        handle = open(folder / str(number), "a")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            continue
        _claimed.append(handle)
        end_uid(FIRST_UID + number)
        return FIRST_UID + number
    raise RuntimeError(f"all {UIDS} grading uids are in use")


def end_uid(uid: int | None) -> None:
    """Kill every process of `uid` (a forked helper drops to it and signals -1: all it may signal, not
    itself), then, where no mount namespace gave the child fresh ones, delete what that uid left in the
    machine's world-writable folders. Only for a uid the grader keeps for its children."""
    if uid is None:
        return
    helper = os.fork()
    if helper == 0:
        try:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            os.kill(-1, 9)
        finally:
            os._exit(0)
    os.waitpid(helper, 0)
    if "--mount" in sandbox.namespaces():
        return
    for top in sandbox.fresh_folders():
        for folder, dirs, files in os.walk(top, topdown=False):
            for name in dirs + files:
                path = os.path.join(folder, name)
                try:
                    if os.lstat(path).st_uid == uid:
                        os.rmdir(path) if name in dirs and not os.path.islink(path) else os.unlink(path)
                except OSError:
                    pass


_prctl = ctypes.CDLL(None, use_errno=True).prctl  # looked up here: a preexec_fn must not import (locks)


def die_with_parent() -> None:
    """In the child-to-be (Popen's preexec_fn): SIGKILL when the grading process dies, however it dies."""
    _prctl(1, 9, 0, 0, 0)  # PR_SET_PDEATHSIG, SIGKILL
