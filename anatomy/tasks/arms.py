"""Comparing two arms of an experiment over seeds: the paired difference, its interval, and what it shows.

Taught in: 16_pretraining (also used by 09_fine_tuning and 17_interpretability).  No shapes: lists of numbers.
Run the same seeds in both arms (a seed fixes the initial weights and the batch order), so that the two
runs of one seed differ only in what the arms differ in. Then compare seed by seed: the differences
b - a carry less noise than the two arms' own spreads. Their mean, with a Student-t interval over the
seeds, is the effect. An interval that contains 0 shows no difference, whatever the sign of its mean:
the words say so, and no trend should be read into such estimates.
"""
from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from anatomy.checks import check_number

NO_DIFFERENCE = "no difference shown"


def mean_interval(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float]:
    """(mean, half-width) of a Student-t interval over the seeds: the spread training noise makes."""
    from scipy.stats import t

    check_number("confidence", confidence, above=0, below=1, hint=" (0.95 for a 95 % interval)")
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__") or len(values) < 2:
        raise ValueError(f"values: an interval needs at least 2 values (one per seed), got {values!r}")
    if not all(isinstance(v, (int, float)) and math.isfinite(v) for v in values):
        raise ValueError(f"values must be finite numbers, got {list(values)!r}")
    half = float(t.ppf((1 + confidence) / 2, len(values) - 1)) * statistics.stdev(values) / math.sqrt(len(values))
    return statistics.fmean(values), half


@dataclass(frozen=True)
class ArmComparison:
    """b - a, seed by seed: its mean and the half-width of its interval."""
    mean: float
    half_width: float
    seeds: int
    confidence: float = 0.95

    @property
    def shown(self) -> bool:
        """True when the interval excludes 0: a difference is shown (its sign is the mean's)."""
        return abs(self.mean) > self.half_width

    def verdict(self, higher: str = "b is higher", lower: str = "b is lower") -> str:
        return (higher if self.mean > 0 else lower) if self.shown else NO_DIFFERENCE

    def describe(self, scale: float = 100.0, unit: str = " points", digits: int = 1,
                 higher: str = "b is higher", lower: str = "b is lower", over: str = "seeds") -> str:
        """E.g. "+5.7 ± 7.7 points (95 % paired interval, 5 seeds): no difference shown"."""
        return (f"{self.mean * scale:+.{digits}f} ± {self.half_width * scale:.{digits}f}{unit} "
                f"({100 * self.confidence:g} % paired interval, {self.seeds} {over}): {self.verdict(higher, lower)}")


def compare_arms(a: Sequence[float], b: Sequence[float], confidence: float = 0.95) -> ArmComparison:
    """Arm b against arm a, where a[i] and b[i] came from the same seed."""
    if isinstance(a, (str, bytes)) or isinstance(b, (str, bytes)):
        raise TypeError(f"a and b must be sequences of numbers, one per seed; got {type(a).__name__} and {type(b).__name__}")
    a, b = list(a), list(b)
    if len(a) != len(b):
        raise ValueError(f"a and b must hold one result per seed, the same seeds in both; got {len(a)} and {len(b)} "
                         f"results")
    mean, half = mean_interval([y - x for x, y in zip(a, b)], confidence)
    return ArmComparison(mean, half, len(a), confidence)
