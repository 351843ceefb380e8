"""The child's audit hook: it records refused library calls and refuses what would undo the poisoning
or leave the process: gc's object walks (they find the poisoning's handles), ctypes, reading the
poisoned modules' source or bytecode (no copy of them can be compiled), restoring a poisoned
function's code, starting processes or sub-interpreters (a fresh interpreter is not poisoned, nor
recorded; os.fork only from a substitute's FORKING functions, homework 3's one trial per fork; the
functions that start one without an audit event, such as _posixsubprocess.fork_exec, are replaced by
`refuse_spawning`), writing a native library (native code is not recorded), sockets. Tripwires, not a
sandbox (CPython's audit hooks can be got round with enough effort): the OS boundary (sandbox.py)
keeps the grade safe; these keep "write it yourself" honest. Sent to the child as source.
"""
from __future__ import annotations

import sys
import types
from pathlib import Path

from anatomy_grading import seal
from anatomy_grading.seal import writes

BLOCKED_EVENTS = ("gc.get_objects", "gc.get_referrers", "gc.get_referents", "ctypes.", "subprocess.Popen", "os.system",
                  "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty", "pty.spawn", "socket.connect",
                  "socket.bind", "socket.sendto", "socket.sendmsg", "sys._setprofileallthreads", "sys._settraceallthreads")
NATIVE = (".so", ".pyd", ".dylib", ".dll")  # a library the record could not see into
INTERPRETERS = ("_xxsubinterpreters", "_xxinterpchannels", "_interpreters", "_interpchannels", "_testcapi")
_refused: list[str] = []
_sources: set[tuple[str, str]] = set()  # (folder, module stem) of every poisoned function's source file
_functions: set[int] = set()  # ids of the poisoned functions, whose __code__ must stay
_forking: list[types.CodeType] = []  # the code that may call os.fork (a substitute's FORKING: trial.isolated)


def allow_fork(*functions: types.FunctionType) -> None:
    """The grader's own `functions` may fork (the fork keeps this process's poisoning and tripwires)."""
    _forking.extend(f.__code__ for f in functions)


SPAWNING = (("_posixsubprocess", "fork_exec"), ("subprocess", "_fork_exec"), ("os", "posix_spawn"),
            ("os", "posix_spawnp"), ("posix", "posix_spawn"), ("posix", "posix_spawnp"))


def refused_spawn(*args: object, **kwargs: object) -> None:
    raise RuntimeError("starting a process is switched off in the grader")


def refuse_spawning() -> None:
    """Put `refused_spawn` in place of each function that starts a process (SPAWNING); fork_exec raises
    no audit event. A fresh copy of the module would get round this; homework 3's trials still meet RLIMIT_NPROC 0 (trial.py)."""
    import importlib
    for module, name in SPAWNING:
        found = importlib.import_module(module)
        if hasattr(found, name):
            setattr(found, name, refused_spawn)


def guard(fn: types.FunctionType) -> None:
    """Watch a function about to be poisoned: its code may not come back, its source not be read."""
    source = Path(fn.__code__.co_filename)
    _sources.add((str(source.parent), source.stem))
    _functions.add(id(fn))


def poisoned_file(path: str) -> bool:
    folder, stem = Path(path).parent, Path(path).name.split(".")[0]
    return any(stem == s and (str(folder) == f or str(folder) == f + "/__pycache__") for f, s in _sources)


def tripwire(event: str, args: tuple) -> None:
    """The audit hook: record refusals, refuse what would undo the poisoning or leave the process."""
    if event == "grading.refused":
        _refused.append(str(args[0]))
    elif event == "os.fork" and (caller := sys._getframe(1).f_code) and any(caller is code for code in _forking):
        return
    elif event.startswith(BLOCKED_EVENTS):
        raise RuntimeError(f"{event} is switched off in the grader")
    elif why := seal.refuses(event, args):  # a sealed child (homework 3): no file written, its metadata unchanged
        raise RuntimeError(why)
    elif event == "open" and isinstance(args[0], str) and poisoned_file(args[0]):
        raise RuntimeError(f"reading {args[0]} is switched off in the grader")
    elif event == "open" and isinstance(args[0], str) and args[0].endswith(NATIVE) and writes(args[1], args[2]):
        raise RuntimeError(f"writing native code ({args[0]}) is switched off in the grader")
    elif event == "import" and str(args[0]).split(".")[0] in INTERPRETERS:
        raise RuntimeError(f"importing {args[0]} is switched off in the grader")
    elif event == "object.__setattr__" and args[1] == "__code__" and id(args[0]) in _functions:
        raise RuntimeError("restoring a refused function is switched off in the grader")


def take_refusals() -> list[str]:
    found = sorted(set(_refused))
    _refused.clear()
    return found
