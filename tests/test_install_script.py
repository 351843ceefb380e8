"""`make install` (tools/install_lock.sh) installs the lock with uv where it can and with pip where it cannot,
and `make test` shows where its time goes. The installers are stand-ins that log their arguments: the real
installs are timed by benchmarks/install_time.py (`make bench-install`), not here."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tools" / "install_lock.sh"
PIP_CONFIG = "global.find-links='/opt/wheels'\nglobal.extra-index-url='https://example.org/simple file:///no/such/index'\n"


def stand_in(path: Path, log: Path, stdout: str = "", question: str = "-m pip config list") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/bash\necho \"$(basename $0) $*\" >> {log}\n"
                    f"if [ \"$*\" = '{question}' ]; then printf %s \"{stdout}\"; fi\n")
    path.chmod(0o755)


def run(tmp_path: Path, installer: str, uv_on_path: bool, uv_cache: Path | None = None) -> list[str]:
    log, venv, bin_dir = tmp_path / "log", tmp_path / "venv", tmp_path / "bin"
    stand_in(venv / "bin" / "python", log, PIP_CONFIG)
    if uv_on_path:
        stand_in(bin_dir / "uv", log, str(uv_cache or tmp_path / "uv-cache"), question="cache dir")
    path = os.pathsep.join([str(bin_dir)] + [p for p in os.environ["PATH"].split(os.pathsep) if not (Path(p) / "uv").exists()])
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")} | {"PATH": path}
    subprocess.run(["bash", SCRIPT, venv, installer], cwd=ROOT, env=env, check=True, capture_output=True, text=True)
    return [line for line in log.read_text().splitlines() if line != "python -m pip config list"]


def test_uv_on_path_installs_the_lock_from_pips_indexes(tmp_path):
    lines = run(tmp_path, "uv", uv_on_path=True)
    assert lines[0] == "uv cache dir", lines
    lines = lines[1:]
    assert len(lines) == 2 and all(line.startswith("uv pip install") for line in lines), lines
    assert "--no-deps" in lines[0] and lines[0].endswith("-r requirements.lock") and lines[1].endswith("--no-deps -e .")
    assert "--find-links /opt/wheels" in lines[0] or not Path("/opt/wheels").exists()
    assert "--extra-index-url https://example.org/simple" in lines[0] and "/no/such/index" not in lines[0]
    assert "--index-strategy unsafe-best-match" in lines[0], "pip picks each package from any index: uv must too"


def test_uv_links_from_its_cache_on_the_same_file_system_and_copies_across(tmp_path):
    lock_line = run(tmp_path, "uv", uv_on_path=True)[1]  # the cache in tmp_path, beside the venv
    assert "--link-mode=hardlink" in lock_line, lock_line
    elsewhere = Path("/dev/shm")  # another file system (tmpfs) on Linux
    if not elsewhere.is_dir() or os.stat(elsewhere).st_dev == os.stat(tmp_path).st_dev:
        return
    (tmp_path / "log").unlink()
    cache = elsewhere / f"uv-cache-{os.getpid()}"
    try:
        lock_line = run(tmp_path, "uv", uv_on_path=True, uv_cache=cache)[1]
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    assert "--link-mode=copy" in lock_line, lock_line


def test_without_uv_pip_installs_it_or_installs_everything(tmp_path):
    lines = run(tmp_path, "uv", uv_on_path=False)  # the stand-in pip "installs" uv, but no uv appears
    assert lines == ["python -m pip install -q uv", "python -m pip install -q --no-deps -r requirements.lock",
                     "python -m pip install -q --no-deps -e ."]


def test_installer_pip_never_uses_uv(tmp_path):
    lines = run(tmp_path, "pip", uv_on_path=True)
    assert lines == ["python -m pip install -q --no-deps -r requirements.lock", "python -m pip install -q --no-deps -e ."]


def test_make_test_lists_the_slowest_tests():
    dry_run = subprocess.run(["make", "-n", "-o", ".venv/.installed", "-o", "install", "test"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout
    pytest_line = [line for line in dry_run.splitlines() if " -m pytest " in line][-1]  # make[1] lines when run under make
    assert "--durations=25" in pytest_line, dry_run
