"""How the child is contained, as far as this platform allows, and which of those measures held.

Always: `python -I` with an environment holding no secrets, a private, empty working folder with
private temporary folders (TMPDIR, TMP, TEMP), resource limits (LIMITS: memory, processes, open
files, file size, CPU time), its own process group, and (proxies.py) a wall-clock limit on every
call and on the whole submission. When the grader runs as root: a uid no other grading process
uses (62000 + the first free of UIDS, held by a lock for the grading process's life; RLIMIT_NPROC
counts per uid), every process of which is killed when a child ends (and when the uid is claimed),
and files it left in a world-writable folder are deleted where no mount namespace replaced those. When
`unshare` works (root, or unprivileged user namespaces): network, pid and IPC namespaces, and a
mount namespace in which the grading package, the homework checks, the review data, the instructor's
and build folders, the batch's submissions and the output are hidden, every world-writable folder
(FRESH) is an empty tmpfs of its own, and an interpreter living under an unreadable folder (e.g.
/root/.pyenv) is mounted back for the child.
"""
from __future__ import annotations

import functools
import json
import os
import stat
import subprocess
import sys
import sysconfig
from pathlib import Path

BOOT = ("import json, sys, types\n"
        "size = int(sys.stdin.buffer.readline())\n"
        "boot = json.loads(sys.stdin.buffer.read(size))\n"
        "package = sys.modules['anatomy_grading'] = types.ModuleType('anatomy_grading')\n"
        "package.__path__ = []\n"
        "for name, source in boot['modules']:\n"
        "    module = sys.modules[name] = types.ModuleType(name)\n"
        "    exec(compile(source, '<grading ' + name + '>', 'exec'), module.__dict__)\n"
        "    setattr(package, name.rpartition('.')[2], module)\n"
        "sys.modules['anatomy_grading.child'].main(boot['setup'])\n")
NAMESPACES = ["--mount", "--net", "--pid", "--ipc", "--fork", "--kill-child", "--mount-proc"]
LIMITS = {"RLIMIT_CORE": 0, "RLIMIT_FSIZE": 64 << 20, "RLIMIT_NOFILE": 256, "RLIMIT_AS": 6 << 30}
NPROC = 64  # processes and threads of the child's uid (root only: without a uid of its own it would count the user's)
FRESH = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/dev/mqueue")  # world-writable where they exist: replaced


def fresh_folders() -> list[str]:
    """The world-writable folders of FRESH on this machine (each gets an empty tmpfs in the child)."""
    return [p for p in FRESH if os.path.isdir(p) and not os.path.islink(p) and os.stat(p).st_mode & stat.S_IWOTH]


@functools.lru_cache(maxsize=1)
def namespaces() -> tuple[str, ...]:
    """The unshare options this machine allows (tried once), or () where none work."""
    user = [] if os.geteuid() == 0 else ["--user", "--map-root-user"]
    for options in (user + NAMESPACES, user + ["--net"]):
        try:
            subprocess.run(["unshare", *options, "true"], check=True, capture_output=True, timeout=20)
            return tuple(options)
        except (OSError, subprocess.SubprocessError):
            continue
    return ()


def environment(threads: int) -> dict[str, str]:
    return {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8",
            "OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads), "MPLBACKEND": "Agg",
            "TOKENIZERS_PARALLELISM": "false", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
            "HOME": "/nonexistent"}


def blocked_ancestor(path: Path) -> Path | None:
    """The highest folder above `path` that other users cannot enter (None if all of them can)."""
    for parent in reversed(path.parents):
        if parent != Path("/") and not os.stat(parent).st_mode & stat.S_IXOTH:
            return parent
    return None


@functools.lru_cache(maxsize=1)
def needed_paths() -> tuple[Path, ...]:
    """What the child's interpreter reads: the prefixes, its sys.path (as `python -I` sets it), anatomy."""
    import anatomy

    probe = subprocess.run([sys.executable, "-I", "-c", "import json, sys; print(json.dumps(sys.path))"],
                           check=True, capture_output=True, text=True, timeout=60)
    paths = {sys.prefix, sys.base_prefix, Path(anatomy.__file__).parent, Path(sys.executable).resolve().parent,
             sysconfig.get_paths()["stdlib"], *json.loads(probe.stdout)}
    return tuple(sorted({Path(p).resolve() for p in paths if p and Path(p).is_dir()}))


def plan(hide: list[Path], uid: int | None, cpu_seconds: int) -> dict:
    """The confinement part of the child's setup, and the words for what holds; `uid`: uids.own_uid's."""
    options, root = namespaces(), os.geteuid() == 0
    mounts = "--mount" in options and os.path.isdir("/dev/shm")  # /dev/shm: a stash while /tmp is replaced
    needed = needed_paths()
    expose: dict[str, list[str]] = {}
    if mounts and root:
        for path in needed:
            if (blocked := blocked_ancestor(path)) is not None and not any(n in path.parents for n in needed):
                expose.setdefault(str(blocked), []).append(str(path))
    hidden = [str(p) for p in hide if p.exists() and not any(n == p or p in n.parents for n in needed)]
    tmp = [p for p in needed if Path("/tmp") in p.parents]  # e.g. a venv under /tmp: kept in the fresh /tmp
    keep = [str(p) for p in tmp if not any(n in p.parents for n in tmp)]
    fresh = fresh_folders() if mounts else []
    unhidden = [str(p) for p in hide if p.exists() and str(p) not in hidden]
    limits = LIMITS | {"RLIMIT_CPU": cpu_seconds} | ({"RLIMIT_NPROC": NPROC} if root else {})
    held = ["environment without secrets", "private working and temporary folders", "its own process group",
            "limits: " + ", ".join(f"{k.removeprefix('RLIMIT_').lower()} {v >> 20} MiB" if k in ("RLIMIT_AS", "RLIMIT_FSIZE")
                                   else f"{k.removeprefix('RLIMIT_').lower()} {v}" for k, v in limits.items()),
            "wall-clock limits per call and per submission"]
    held += [f"a uid of its own ({uid}), all of whose processes end with the child"] if root else []
    held += ["no network (network namespace)"] if "--net" in options else []
    held += ["pid and IPC namespaces"] if "--pid" in options else []
    held += [f"mount namespace: fresh {', '.join(fresh)}; hidden: {', '.join(hidden)}"] if mounts else []
    held += [f"NOT hidden (the interpreter needs what lies inside): {p}" for p in unhidden] if mounts else []
    return {"mounts": mounts, "hide": hidden, "keep": keep, "expose": expose, "uid": uid,
            "limits": limits, "work": "/tmp/grading" if mounts else None, "held": held, "prefix": list(options),
            "fresh": fresh}


def lock_down(hide: list[Path]) -> list[str]:
    """Where no mount namespace hides anything (Gradescope's Docker, as root): permissions instead. The
    hidden paths become root-only; the folders above the interpreter become enterable, not listable,
    by the child's uid (Gradescope's Python lives under /root). Only for a throwaway container."""
    if os.geteuid() != 0 or "--mount" in namespaces():
        return []
    done = []
    for path in (p for p in hide if p.exists()):
        os.chmod(path, 0o700)
        done.append(f"{path} made root-only")
    for path in needed_paths():
        while (blocked := blocked_ancestor(path)) is not None:
            os.chmod(blocked, os.stat(blocked).st_mode | stat.S_IXOTH)
            done.append(f"{blocked} made enterable by others")
    return done


def command(confinement: dict) -> list[str]:
    prefix = ["unshare", *confinement["prefix"], "--"] if confinement["prefix"] else []
    return prefix + [sys.executable, "-I", "-c", BOOT]
