"""Compare a notebook's outputs for what they teach, not for float noise: nbval (`make test`) and
`make notebooks` (tools/execute_notebook.py) both use `same_text`.

Another CPU, or this one with other kernels (ATEN_CPU_CAPABILITY, MKL_CBWR, ONEDNN_MAX_CPU_ISA: see
`make test-portable`), computes floats that differ in their last bits, and a printed number can then
differ in its last printed digit. Two output texts are the same when:
- everything but the numbers is equal, character for character;
- every integer (no decimal point, no exponent) is equal: counts, ids, shapes, token positions;
- every other number is printed with as many decimals and is equal within one unit of its last
  printed digit (a value near a rounding boundary flips it), plus a relative tolerance REL_TOL for
  numbers printed with many digits.
What a cell prints should say what the lesson needs (0.686, not 0.68613423); a cell whose output
cannot be compared at all (text sampled from a model trained on this CPU) says `# NBVAL_IGNORE_OUTPUT`
with its reason.
"""
from __future__ import annotations

import base64
import functools
import io
import math
import re
from pathlib import Path

REL_TOL = 1e-3
IGNORE_OUTPUT = "NBVAL_IGNORE_OUTPUT"
SANITIZE_CONFIG = Path(__file__).resolve().parent.parent / "tests" / "nbval_sanitize.cfg"  # `make test` passes it to nbval
NOT_COMPARED = ("metadata", "execution_count", "traceback")  # as nbval: what no lesson reads
FIGURES = ("image/png", "image/jpeg")
# A number standing alone: not part of a name (layer5, gw1) or of a version (5.23.0); a full stop may follow.
NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d+|\.\d+|\d+)(?:[eE][-+]?\d+)?(?!\w)(?!\.\d)")


def decimals(token: str) -> int:
    return len(token.lower().partition("e")[0].partition(".")[2])


def last_place(token: str) -> float:
    """One unit of the last printed digit: 0.001 for '0.686', 1e-10 for '2.0145e-06'."""
    return 10.0 ** (int(token.lower().partition("e")[2] or 0) - decimals(token))


def same_number(expected: str, got: str) -> bool:
    if expected == got:
        return True
    if not any(c in token for token in (expected, got) for c in ".eE"):
        return False  # integers must be equal
    if decimals(expected) != decimals(got):
        return False  # printed at another precision: the cell changed, not the float
    a, b = float(expected), float(got)
    if math.isnan(a) or math.isnan(b) or math.isinf(a) or math.isinf(b):
        return False
    return abs(a - b) <= 1.01 * max(last_place(expected), last_place(got)) + REL_TOL * max(abs(a), abs(b))


def same_text(expected: str, got: str) -> bool:
    """True when two output texts differ at most in float noise (see the module docstring)."""
    if expected == got:
        return True
    expected_parts, got_parts = NUMBER.split(expected), NUMBER.split(got)
    if expected_parts != got_parts:
        return False
    return all(map(same_number, NUMBER.findall(expected), NUMBER.findall(got)))


def same_output(expected, got) -> bool:
    """same_text over nested notebook output values (str, list of str, dict)."""
    if isinstance(expected, str) and isinstance(got, str):
        return same_text(expected, got)
    if isinstance(expected, list) and isinstance(got, list):
        return same_text("".join(map(str, expected)), "".join(map(str, got)))
    if isinstance(expected, dict) and isinstance(got, dict):
        return expected.keys() == got.keys() and all(same_output(expected[k], got[k]) for k in expected)
    return expected == got


@functools.lru_cache(maxsize=1)
def sanitizers() -> list[tuple[str, str]]:
    """(regex, replacement) pairs of nbval's sanitize file: what varies between runs."""
    from nbval.plugin import get_sanitize_patterns

    return get_sanitize_patterns(SANITIZE_CONFIG.read_text())


def sanitized(value):
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        value = "".join(value)
    if isinstance(value, str):
        for regex, replacement in sanitizers():
            value = re.sub(regex, replacement, value)
    return value


def same_figure(expected: str, got: str) -> bool:
    """Two base64 PNGs that look the same: equal size, pixels 1 % apart on average at most."""
    import matplotlib.image

    try:
        a, b = (matplotlib.image.imread(io.BytesIO(base64.b64decode(x)), format="png") for x in (expected, got))
    except (ValueError, SyntaxError, OSError):
        return expected == got
    return a.shape == b.shape and float(abs(a.astype(float) - b.astype(float)).mean()) <= 0.01


def same_cell_outputs(expected: list, got: list) -> bool:
    """A cell's outputs (nbformat dicts) the same in what they teach: texts by same_text after nbval's
    sanitizers, figures by same_figure; metadata and execution counts are not compared."""
    if len(expected) != len(got):
        return False
    for old, new in zip(expected, got):
        if {k for k in old if k not in NOT_COMPARED} != {k for k in new if k not in NOT_COMPARED}:
            return False
        for key in (k for k in old if k not in NOT_COMPARED):
            if key == "data":
                if old[key].keys() != new[key].keys():
                    return False
                for mime, value in old[key].items():
                    same = same_figure if mime in FIGURES else lambda a, b: same_output(sanitized(a), sanitized(b))
                    if not same(value, new[key][mime]):
                        return False
            elif not same_output(sanitized(old[key]), sanitized(new[key])):
                return False
    return True


class NumericText(str):
    """A str whose == and != are same_text: nbval compares its sanitized outputs with these."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and same_text(str(self), str(other))

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = str.__hash__


def patch_nbval_comparison() -> None:
    """nbval compares `sanitize(reference) != sanitize(test)`: make both sides NumericText."""
    import nbval.plugin

    sanitize = nbval.plugin.IPyNbCell.sanitize
    if getattr(sanitize, "numeric", False):
        return

    def numeric_sanitize(self, s):
        result = sanitize(self, s)
        return NumericText(result) if isinstance(result, str) else result

    numeric_sanitize.numeric = True  # type: ignore[attr-defined]
    nbval.plugin.IPyNbCell.sanitize = numeric_sanitize
