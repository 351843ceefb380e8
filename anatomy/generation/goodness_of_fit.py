"""Does a sampler draw from the distribution it claims? The G-test (likelihood-ratio goodness of fit).

Taught in: 11_gpt (testing samplers and speculative decoding).  Shapes: V outcomes (tokens, or token pairs).
One sampled text equal to a reference is weak evidence about a sampler and cannot show its distribution:
many other rules can write the same text. What a rule fixes is a *distribution*. Draw N times, count each outcome, and compare the counts
O with the expected counts E = N p:  G = 2 Σ O ln(O / E). If the sampler is right, G follows a
chi-square distribution with (cells compared - 1) degrees of freedom (Wilks 1938): the cells left after
dropping outcomes of probability 0 and pooling rare ones. The p-value says how often a right sampler
would look at least this far off. A test at level alpha rejects a right sampler in a fraction alpha of
seeds; a wrong one, with enough draws, in almost all of them. Pooling follows a common rule of thumb
(every expected count >= 5, for the chi-square approximation): outcomes expected fewer than 5 times
are pooled into one cell, and if that cell is still expected fewer than 5 times it joins the smallest
other cell. An outcome drawn although its probability is 0 rejects at once.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from anatomy.checks import check_integer, check_number, check_tensor


@dataclass
class GTest:
    statistic: float  # G; inf when an impossible outcome was drawn
    dof: int  # degrees of freedom: the cells compared, minus 1
    p_value: float  # P(G >= statistic) for a sampler that is right

    def rejects(self, alpha: float) -> bool:
        """True when counts this far off would come from a right sampler less often than alpha."""
        return self.p_value < check_number("alpha", alpha, above=0, below=1)


def chi_square_sf(x: float, dof: int) -> float:
    """P(X >= x) for X chi-square with `dof` degrees of freedom: the regularised upper incomplete gamma
    function Q(dof / 2, x / 2)."""
    check_integer("dof", dof)
    if not isinstance(x, (int, float)) or isinstance(x, bool) or not x >= 0:  # NaN fails x >= 0
        raise ValueError(f"x must be a number >= 0 (a G or chi-square statistic; inf allowed), got {x!r}")
    if x == float("inf"):
        return 0.0
    return float(torch.special.gammaincc(torch.tensor(dof / 2, dtype=torch.float64),
                                         torch.tensor(x / 2, dtype=torch.float64)))


def g_test(counts: torch.Tensor, probs: torch.Tensor, min_expected: float = 5.0) -> GTest:
    """Compare observed `counts` (V,) with the distribution `probs` (V,) they should come from."""
    check_tensor("counts", counts, rank=1, shape="(V,)")
    check_tensor("probs", probs, rank=1, floating=True, shape="(V,)")
    if counts.shape != probs.shape:
        raise ValueError(f"counts and probs must cover the same outcomes, got {tuple(counts.shape)} and {tuple(probs.shape)}")
    if (counts < 0).any() or counts.is_floating_point() and (counts != counts.round()).any():
        raise ValueError("counts must be whole numbers >= 0 (how often each outcome was drawn)")
    if (probs < 0).any() or abs(float(probs.sum()) - 1) > 1e-6:
        raise ValueError(f"probs must be a distribution (>= 0, summing to 1), got sum {float(probs.sum()):.6g}")
    check_number("min_expected", min_expected, above=0)
    counts, probs = counts.double(), probs.double()
    total = float(counts.sum())
    if total == 0:
        raise ValueError("counts are all 0: draw at least once")
    if (counts[probs == 0] > 0).any():  # drawn, though the distribution says it never can be
        return GTest(float("inf"), max(int((probs > 0).sum()) - 1, 1), 0.0)
    expected = total * probs
    cells_observed, cells_expected = _pooled_cells(counts[probs > 0], expected[probs > 0], min_expected)
    dof = len(cells_observed) - 1
    if dof < 1:
        raise ValueError("the distribution has a single likely outcome: there is nothing to test; use more draws "
                         "or a distribution with at least two outcomes")
    seen = cells_observed > 0  # 0 ln 0 = 0
    statistic = 2 * float((cells_observed[seen] * (cells_observed[seen] / cells_expected[seen]).log()).sum())
    return GTest(statistic, dof, chi_square_sf(statistic, dof))


def _pooled_cells(counts: torch.Tensor, expected: torch.Tensor, min_expected: float) -> tuple[torch.Tensor, torch.Tensor]:
    """(observed, expected) per cell: outcomes expected >= min_expected keep their own cell; the rest are
    pooled into one, and a pooled cell still under min_expected joins the smallest other cell."""
    large = expected >= min_expected
    observed_cells, expected_cells = counts[large], expected[large]
    if (~large).any():
        pooled_observed, pooled_expected = counts[~large].sum(), expected[~large].sum()
        if pooled_expected < min_expected and len(expected_cells) > 0:
            smallest = int(expected_cells.argmin())
            observed_cells, expected_cells = observed_cells.clone(), expected_cells.clone()
            observed_cells[smallest] += pooled_observed
            expected_cells[smallest] += pooled_expected
        else:
            observed_cells = torch.cat([observed_cells, pooled_observed[None]])
            expected_cells = torch.cat([expected_cells, pooled_expected[None]])
    return observed_cells, expected_cells
