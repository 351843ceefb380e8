"""anatomy.tasks.arms: the paired comparison of two arms over seeds, checked against scipy's paired t-test."""
import pytest
from scipy.stats import ttest_rel

from anatomy.tasks.arms import NO_DIFFERENCE, compare_arms


def test_interval_equals_scipy_paired_t_test():
    a, b = [0.70, 0.74, 0.69, 0.72, 0.75], [0.74, 0.73, 0.75, 0.79, 0.77]
    comparison = compare_arms(a, b)
    low, high = ttest_rel(b, a).confidence_interval(0.95)
    assert comparison.mean - comparison.half_width == pytest.approx(low)
    assert comparison.mean + comparison.half_width == pytest.approx(high)
    assert comparison.seeds == 5


def test_an_interval_containing_zero_says_no_difference():
    # 16's committed gains at 1,400 steps with 2,000 labels: +9.0, +10.0, +9.0, +5.3, -4.9 points
    random = [0.50, 0.52, 0.53, 0.56, 0.60]
    pretrained = [r + g for r, g in zip(random, [0.090, 0.100, 0.090, 0.053, -0.049])]
    comparison = compare_arms(random, pretrained)
    assert comparison.mean > 0 and not comparison.shown
    assert comparison.describe().endswith(NO_DIFFERENCE)
    assert comparison.describe().startswith("+5.7 ± 7.7 points (95 % paired interval, 5 seeds)")


def test_a_shown_difference_names_its_direction():
    lower = compare_arms([0.8, 0.81, 0.79, 0.8], [0.7, 0.72, 0.69, 0.71])
    assert lower.shown and lower.describe(higher="helps", lower="costs").endswith(": costs")
    assert compare_arms([0.7, 0.72, 0.69, 0.71], [0.8, 0.81, 0.79, 0.8]).verdict() == "b is higher"


def test_pairing_matters():
    # the same two sets of numbers, but the pairs move together: the paired interval is narrow
    a, b = [0.50, 0.60, 0.70, 0.80], [0.52, 0.62, 0.71, 0.83]
    assert compare_arms(a, b).shown
    assert not compare_arms(a, list(reversed(b))).shown


def test_bad_inputs():
    with pytest.raises(ValueError, match="one result per seed.*got 3 and 2"):
        compare_arms([1.0, 2.0, 3.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="at least 2 values"):
        compare_arms([1.0], [2.0])
    with pytest.raises(TypeError, match="sequences of numbers"):
        compare_arms("abc", "abd")
    with pytest.raises(ValueError, match="confidence must be a finite number > 0 and < 1"):
        compare_arms([1.0, 2.0], [1.5, 2.5], confidence=95)
