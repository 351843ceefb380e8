"""Greedy, temperature, top-k and top-p against brute force and Hugging Face's logits processors."""
from itertools import combinations

import pytest
import torch
from transformers.generation.logits_process import (TemperatureLogitsWarper, TopKLogitsWarper,
                                                    TopPLogitsWarper)

from anatomy.generation.sampling import choose_next, next_token_distribution, top_k_filter, top_p_filter


def kept(logits):
    return set(torch.isfinite(logits).nonzero().flatten().tolist())


def smallest_set_with_mass(probs, p):
    """Brute force: of all subsets whose mass is >= p, the smallest (with the most mass among those)."""
    tokens = range(len(probs))
    for size in range(1, len(probs) + 1):
        candidates = [set(c) for c in combinations(tokens, size) if probs[list(c)].sum() >= p - 1e-7]
        if candidates:
            return max(candidates, key=lambda c: probs[list(c)].sum())
    raise AssertionError("unreachable: the whole vocabulary has mass 1")


@pytest.mark.parametrize("seed", range(20))
def test_top_p_keeps_exactly_the_smallest_set_with_enough_mass(seed):
    generator = torch.Generator().manual_seed(seed)
    logits = torch.randn(7, generator=generator, dtype=torch.float64) * 2
    for p in (0.05, 0.3, 0.5, 0.77, 0.9, 0.99, 1.0):
        assert kept(top_p_filter(logits[None], p)[0]) == smallest_set_with_mass(logits.softmax(-1), p), p


@pytest.mark.parametrize("seed", range(10))
def test_top_k_keeps_the_k_largest(seed):
    logits = torch.randn(9, generator=torch.Generator().manual_seed(seed))
    for k in range(1, 10):
        assert kept(top_k_filter(logits[None], k)[0]) == set(sorted(range(9), key=lambda i: -logits[i])[:k])


def test_the_distribution_matches_hugging_face_warpers():
    torch.manual_seed(0)
    logits = torch.randn(4, 30) * 3
    for temperature, k, p in ((0.7, 10, 0.8), (1.5, 3, 0.99), (1.0, 30, 0.3)):
        theirs = TopPLogitsWarper(p)(None, TopKLogitsWarper(k)(None, TemperatureLogitsWarper(temperature)(None, logits)))
        torch.testing.assert_close(next_token_distribution(logits, temperature, k, p), theirs.softmax(-1))


def test_greedy_is_the_argmax_and_sampling_follows_the_distribution():
    logits = torch.tensor([[0.0, 1.0, 2.0, -1.0]])
    assert choose_next(logits).item() == 2
    draws = choose_next(logits.expand(20000, -1), do_sample=True, temperature=0.5,
                        generator=torch.Generator().manual_seed(0))
    frequencies = torch.bincount(draws, minlength=4) / len(draws)
    torch.testing.assert_close(frequencies, (logits[0] / 0.5).softmax(-1), atol=0.01, rtol=0)


@pytest.mark.parametrize("kwargs, message", [
    ({"temperature": 0.0}, "temperature must be a finite number > 0, got 0.0 .*greedy"),
    ({"temperature": -1.0}, "temperature must be a finite number > 0"),
    ({"temperature": float("nan")}, "temperature must be a finite number > 0, got nan"),
    ({"top_k": 0}, r"top_k must be an integer in \[1, 5\], got 0 \(or None"),
    ({"top_k": 2.5}, r"top_k must be an integer in \[1, 5\], got 2.5"),
    ({"top_k": True}, r"top_k must be an integer in \[1, 5\], got True"),
    ({"top_k": 6}, r"top_k must be an integer in \[1, 5\], got 6 \(or None for no cut; the vocabulary has 5 tokens\)"),
    ({"top_p": 0.0}, "top_p must be a finite number > 0 and <= 1, got 0.0"),
    ({"top_p": 1.5}, "top_p must be a finite number > 0 and <= 1, got 1.5")])
def test_bad_settings_raise(kwargs, message):
    with pytest.raises(ValueError, match=message):
        choose_next(torch.zeros(1, 5), do_sample=True, **kwargs)


@pytest.mark.parametrize("do_sample", [False, True])
def test_nan_logits_are_refused_not_picked(do_sample):
    logits = torch.tensor([[0.0, 1.0, 2.0], [0.0, float("nan"), 1.0]])
    with pytest.raises(ValueError, match=r"logits hold NaN, \+inf, or only -inf in row\(s\) \[1\]"):
        choose_next(logits, do_sample=do_sample)
