"""How long a fresh `make install` from the lock takes with pip and with uv: python3 benchmarks/install_time.py
(`make bench-install`; a few minutes, so not part of `make bench`).

Each installer installs requirements.lock and the package into a new venv (tools/install_lock.sh, the
recipe of `make install`) twice: a warm-up run that fills its download cache, then the timed run, from
that warm cache as a maintainer's second clone or a CI cache would be. pip's run is what `make install`
did before it took uv (INSTALLER=pip still does). uv's run includes putting uv itself into the venv
with pip where it is not on PATH, as a student's first `make install` does. Prints both figures and
their ratio (goal <= 1/3). Run it alone: installing is CPU- and disk-bound. Never a timed test.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOAL = 1 / 3


def fresh_install(installer: str, venv: Path, env: dict[str, str]) -> float:
    shutil.rmtree(venv, ignore_errors=True)
    start = time.perf_counter()
    subprocess.run(["bash", ROOT / "tools" / "install_lock.sh", venv, installer], cwd=ROOT, env=env, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-warm-up", action="store_true", help="time the first run (caches as they are)")
    args = parser.parse_args()
    # uv is measured as a student without uv on PATH meets it: pip puts it into the venv first.
    path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if not (Path(p) / "uv").exists())
    env = os.environ | {"PATH": path}
    seconds = {}
    with tempfile.TemporaryDirectory(dir=ROOT / "build" if (ROOT / "build").is_dir() else None) as scratch:
        for installer in ("pip", "uv"):
            venv = Path(scratch) / f"venv-{installer}"
            if not args.no_warm_up:
                fresh_install(installer, venv, env)
            seconds[installer] = fresh_install(installer, venv, env)
            shutil.rmtree(venv)  # 2.2 GB each
            print(f"{installer:>3}: fresh install of requirements.lock + the package in {seconds[installer]:6.1f} s",
                  flush=True)
    ratio = seconds["uv"] / seconds["pip"]
    print(f"uv / pip = {ratio:.2f} (goal <= {GOAL:.2f}: {'met' if ratio <= GOAL else 'NOT met'}); "
          f"{os.cpu_count()} cores, Python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
