#!/usr/bin/env bash
# Install requirements.lock (every package at its pinned version, --no-deps) and this package (editable)
# into a venv: `make install` runs this. Usage: tools/install_lock.sh VENV [uv|pip]
#
# uv (https://pypi.org/project/uv/) installs the ~180 locked packages several times faster than pip
# (benchmarks/install_time.py, `make bench-install`, measures both). It is taken from PATH; where it is
# absent, pip first puts it into the venv (one ~17 MB wheel). Where that fails too (offline, no wheel
# for this platform), or with INSTALLER=pip, pip installs everything as before.
#
# uv reads no pip configuration, so the indexes and wheel folders pip is configured with (pip.conf,
# PIP_FIND_LINKS, PIP_EXTRA_INDEX_URL: e.g. a local CPU-only torch wheel) are handed to it, and it may
# pick each package from any of them, as pip does (--index-strategy unsafe-best-match).
set -euo pipefail
venv=${1:?usage: tools/install_lock.sh VENV [uv|pip]}
installer=${2:-uv}
python=$venv/bin/python
# This machine's pip config may name local indexes that do not exist; hide only that noise.
quiet() { "$@" 2>&1 | { grep -v 'is ignored: it is neither a file nor a directory' || true; }; }

test -x "$python" || python3 -m venv "$venv"

uv=""
if [ "$installer" = uv ]; then
    uv=$(command -v uv || true)
    if [ -z "$uv" ] && { test -x "$venv/bin/uv" || quiet "$python" -m pip install -q uv; } && test -x "$venv/bin/uv"; then
        uv=$venv/bin/uv
    fi
    [ -n "$uv" ] || echo "uv not found and not installable: installing with pip"
fi

if [ -n "$uv" ]; then
    # What pip would read: its config files (global/user/site) and its environment variables.
    setting() { "$python" -m pip config list 2>/dev/null | sed -n "s/^[a-z:]*\.$1='\(.*\)'$/\1/p"; }
    options=()
    for link in $(setting find-links) ${PIP_FIND_LINKS:-}; do
        [ -e "${link#file://}" ] && options+=(--find-links "$link")
    done
    for index in $(setting extra-index-url) ${PIP_EXTRA_INDEX_URL:-}; do
        case $index in file://*) [ -d "${index#file://}" ] || continue ;; esac
        options+=(--extra-index-url "$index")
    done
    index=$(setting index-url | tail -n 1)
    [ -n "${PIP_INDEX_URL:-$index}" ] && options+=(--index-url "${PIP_INDEX_URL:-$index}")
    # Hard links from uv's cache (uv's own default on Linux) where the cache and the venv share a file system:
    # no 2 GB copy (make bench-install). Elsewhere copies, which uv would fall back to anyway, with a warning.
    device() { stat -c %d "$1" 2>/dev/null || stat -f %d "$1"; }  # GNU stat, else BSD/macOS stat
    cache=$("$uv" cache dir 2>/dev/null || true)
    link=copy
    if [ -n "$cache" ] && mkdir -p "$cache" && [ "$(device "$cache")" = "$(device "$venv")" ]; then link=hardlink; fi
    "$uv" pip install --quiet --python "$python" --no-deps --index-strategy unsafe-best-match --link-mode=$link \
        "${options[@]}" -r requirements.lock
    "$uv" pip install --quiet --python "$python" --no-deps -e .
else
    quiet "$python" -m pip install -q --no-deps -r requirements.lock
    quiet "$python" -m pip install -q --no-deps -e .
fi
