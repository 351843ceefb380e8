"""Headless Chromium with networking disabled: proof that a view renders offline, and screenshots.

Tooling, not course material (used by tests/test_viz_browser.py and images/make_screenshots.py).
"""
from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

OFFLINE_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9",
                 "--virtual-time-budget=15000")


def find_chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def render_offline(html: str, folder: Path, *flags: str, name: str = "_headless") -> str:
    """Save `html` as a page in `folder` (so relative script paths resolve as they would for a
    notebook there), open it in Chromium with every host unresolvable, and return stdout."""
    chromium = find_chromium()
    if chromium is None:
        raise FileNotFoundError("Chromium not found: apt-get install chromium")
    page = Path(folder) / f"{name}.html"
    page.write_text(f"<!DOCTYPE html><html><head><meta charset='utf-8'></head><body>{html}</body></html>")
    try:
        with tempfile.TemporaryDirectory() as profile:
            return subprocess.run([chromium, *OFFLINE_FLAGS, f"--user-data-dir={profile}", *flags, page.as_uri()],
                                  capture_output=True, text=True, timeout=120, check=True).stdout
    finally:
        page.unlink()
