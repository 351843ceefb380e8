"""The untrusted child: runs the student's notebook cells, then answers the grader's calls.

sandbox.py starts it as `python -I -c BOOT`; BOOT reads this module and the others it needs
(connection.SHIPPED) as source from stdin (the child needs no read access to the grading package) and calls main(setup):
1. confine: (as root inside its own namespaces, when it has them) hide the paths it must not read,
   give each world-writable folder a fresh tmpfs, enter a private working folder (its TMPDIR inside),
   set resource limits, drop to the grading uid;
2. prepare: import the libraries the notebook needs, apply the poisoning policy (poison.py), load the substitutes
   a check may hand back, stub `otter` and `anatomy.homework` (so the notebook's import cell runs), seal it
   where its group asks (seal.py: no file written), install the audit tripwires;
3. answer requests (wire frames on stdin; replies on setup["reply_fd"]) until told to stop; while one
   runs, handles.CHANNEL["ask"] may send the grader a question (a frame {"ask": ...}) and read its answer.
Objects that are not plain data stay here; the parent holds handles to them (proxies.py).
"""
from __future__ import annotations

import builtins
import contextlib
import io
import linecache
import os
import resource
import subprocess
import sys
import types
from typing import Callable

import torch

from anatomy_grading import blocks, poison, reach, seal, tripwires, wire
from anatomy_grading.handles import CHANNEL, Handles, answer
from anatomy_grading.stubs import Stub, StubFinder


def confine(setup: dict) -> None:
    if setup["mounts"]:  # root in a fresh mount namespace: what the child must not see disappears
        mount = lambda *args: subprocess.run(["mount", *args], check=True, capture_output=True)  # noqa: E731
        mount("--make-rprivate", "/")
        fresh = sorted(setup["fresh"], key=lambda p: p != "/dev/shm")  # each world-writable folder: empty, its own;
        for path in fresh:  # what the interpreter needs under /tmp (a venv) is kept, via a stash in the fresh /dev/shm
            stash = [f"/dev/shm/.keep{i}" for i in range(len(setup["keep"]))] if path == "/tmp" else []
            for kept, place in zip(setup["keep"], stash):
                os.makedirs(place)
                mount("--bind", kept, place)
            mount("-t", "tmpfs", "-o", "size=256m,mode=1777", "tmpfs", path)
            for kept, place in zip(setup["keep"], stash):
                os.makedirs(kept, exist_ok=True)
                mount("--move", place, kept)
        for number, (blocked, needed) in enumerate(setup["expose"].items()):  # an unreadable folder with
            stash = [f"/tmp/.expose{number}-{i}" for i in range(len(needed))]  # the interpreter inside
            for path, place in zip(needed, stash):
                os.makedirs(place)
                mount("--bind", path, place)
            mount("-t", "tmpfs", "-o", "mode=0755", "exposed", blocked)
            for path, place in zip(needed, stash):
                os.makedirs(path, exist_ok=True)
                mount("--move", place, path)
        for path in setup["hide"]:
            if os.path.isdir(path):
                mount("-t", "tmpfs", "-o", "ro,size=4k,mode=0555", "hidden", path)
            elif os.path.exists(path):
                mount("--bind", "/dev/null", path)
    temporary = os.path.join(setup["work"], ".tmp")  # its temporary files: inside its private folder
    for folder in (setup["work"], temporary):
        os.makedirs(folder, mode=0o700, exist_ok=True)
        if setup["uid"] is not None:
            os.chown(folder, setup["uid"], setup["uid"])
    os.chdir(setup["work"])
    os.environ.update(HOME=setup["work"], TMPDIR=temporary, TMP=temporary, TEMP=temporary)
    import tempfile
    tempfile.tempdir = None  # torch's import asked already: forget the answer, so that TMPDIR counts
    for name, value in setup["limits"].items():
        resource.setrlimit(getattr(resource, name), (value, value))
    if setup["uid"] is not None:
        os.setgroups([])
        os.setgid(setup["uid"])
        os.setuid(setup["uid"])
    import ctypes  # no setuid program may give the privileges back (PR_SET_NO_NEW_PRIVS); and dying with its
    ctypes.CDLL(None, use_errno=True).prctl(38, 1, 0, 0, 0)  # parent (PR_SET_PDEATHSIG: a uid change cleared it)
    ctypes.CDLL(None, use_errno=True).prctl(1, 9, 0, 0, 0)


def prepare(setup: dict) -> tuple[list[str], str | None]:
    torch.set_num_threads(setup["threads"])
    torch.set_flush_denormal(True)  # a diverging run's denormal numbers would make it many times slower
    torch.ones(256, 256) @ torch.ones(256, 256)  # its thread pool now, before a seal counts the threads
    import importlib
    import matplotlib
    matplotlib.use("Agg")
    for name in ("matplotlib.pyplot", "anatomy", "transformers", "huggingface_hub.hf_api", *setup["preload"]):
        importlib.import_module(name)
    poisoned = poison.poison(setup["policy"])
    for name, source in setup["substitutes"]:
        module = sys.modules[name] = types.ModuleType(name)
        exec(compile(source, f"<substitute {name}>", "exec"), module.__dict__)
        if isinstance(getattr(module, "CHANNEL", None), dict):  # one that asks the grader mid-call (homework 3)
            module.CHANNEL.update(CHANNEL)
        tripwires.allow_fork(*getattr(module, "FORKING", ()))  # one that runs each trial in a fork (homework 3)
    blocks.trust(*[m for n, m in sys.modules.items() if n.startswith("anatomy_grading.") or n in dict(setup["substitutes"])])
    for name in [n for n in sys.modules if n.startswith(("otter", "anatomy.homework"))]:
        if name not in dict(setup["substitutes"]):
            del sys.modules[name]
    sys.meta_path.insert(0, StubFinder(("otter", "anatomy.homework", "anatomy_grading")))
    linecache.clearcache()
    tripwires.refuse_spawning()
    sealed = seal.seal(setup["uid"] is not None) if setup.get("sealed") else None  # ctypes; runner.py: at one thread
    sys.addaudithook(tripwires.tripwire)
    return poisoned, sealed


def main(setup: dict) -> None:
    requests, reply_fd = wire.reader(0, lambda: os._exit(0)), int(setup["reply_fd"])
    reply = lambda message, tensors=None: wire.send(reply_fd, message, tensors)  # noqa: E731

    def asker(write_fd: int, answers: Callable) -> Callable:  # mid-call: the grader answers before the reply
        return lambda message, tensors: (wire.send(write_fd, {"ask": message}, tensors), answers())[1]
    CHANNEL["ask"] = asker(reply_fd, requests)
    if setup.get("sealed"):  # homework 3's forks ask over a channel of their own, never the child's (connection.py)
        asks, answers = setup["trials"]
        CHANNEL["ask"] = asker(asks, wire.reader(answers, lambda: None))
        CHANNEL["sealed"] = {"keep": (asks, answers), "in_fork": seal.in_fork, "log": seal.log_of(1)}

    try:
        confine(setup)
        poisoned, sealed = prepare(setup)
    except BaseException as error:  # the instructor's problem (or the platform's), never the student's
        reply({"fatal": f"{type(error).__name__}: {error}"})
        os._exit(1)
    reply({"ready": True, "poisoned": poisoned, "sealed": sealed})
    handles, namespace = Handles(), {"__name__": "__main__", "__builtins__": builtins, "display": print, "get_ipython": Stub()}
    while True:
        message, tensors = requests()
        if message.get("op") == "bye":
            os._exit(0)
        watched = setup["policy"] in reach.WATCHED and message.get("op") in ("call", "method")
        try:
            with reach.recording(setup["policy"]) if watched else contextlib.nullcontext():
                result = answer(message, tensors, handles, namespace)
            out: dict = {}
            reply({"value": handles.encode(result, out), "refused": tripwires.take_refusals()}, out)
        except BaseException as error:  # whatever the student's code raised is an answer too
            reply({"error": {"type": type(error).__name__, "message": str(error)[:4000]},
                   "refused": tripwires.take_refusals()})
        for stream in (sys.__stdout__, sys.__stderr__):  # what the student printed reaches the log now
            try:
                stream.flush()
            except Exception:
                pass
