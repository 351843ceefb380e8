"""Our sampler draws from the distribution each rule defines: G-tests against an independent reference.

The expected distributions are computed here in plain Python (sorted lists, no torch, none of the
sampler's code), cross-checked against Hugging Face's warpers. Each rule is drawn N = 4000 times per
seed and tested at level ALPHA. A right sampler is rejected on a seed with probability ALPHA, and this
suite runs about 200 such tests: requiring none to reject would fail a right sampler somewhere with
probability about 18 % whenever its use of random numbers changes. So each family of 20 seeds may
reject once (P(two or more of 20) <= 190 ALPHA^2: about 0.2 % over the 10 such families), while each
planted bug (top-p keeping one token too few, temperature applied after the softmax, top-k ties broken
by index) must be rejected on every seed. The G statistic itself is checked against scipy's.
"""
import math

import pytest
import torch
from scipy.stats import chi2, power_divergence
from transformers.generation.logits_process import TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper

from anatomy.generation import sampling
from anatomy.generation.goodness_of_fit import chi_square_sf, g_test
from anatomy.generation.text_generation import generate
from anatomy.models.gpt import GPT, GPTConfig

ALPHA = 1e-3  # a right sampler is rejected on one seed in 1000
ALLOWED_REJECTIONS = 1  # per family of 20 seeds: a right sampler rejects twice with probability <= 1.9e-4
DRAWS = 4000
SEEDS = range(20)
# A tie at the 2nd/3rd place (top-k = 2 must keep both); no tie where top-p 0.6 or 0.9 cuts.
LOGITS = [2.0, 1.5, 1.5, 1.0, 0.3, 0.0, -0.5, -1.0]
RULES = {"temperature 1": {}, "temperature 0.5": {"temperature": 0.5}, "temperature 2": {"temperature": 2.0},
         "top-k 2 (a tie)": {"top_k": 2}, "top-k 4": {"top_k": 4}, "top-p 0.6": {"top_p": 0.6},
         "top-p 0.9": {"top_p": 0.9}, "temperature 0.7, top-k 5, top-p 0.8": {"temperature": 0.7, "top_k": 5, "top_p": 0.8}}


def reference_distribution(logits, temperature=1.0, top_k=None, top_p=None):
    """Plain Python: divide by the temperature; keep the tokens at least as large as the k-th largest;
    of those, keep the likeliest until their mass reaches top_p; softmax over what is kept."""
    scores = [x / temperature for x in logits]
    kept = set(range(len(scores)))
    if top_k is not None:
        kth = sorted(scores, reverse=True)[top_k - 1]
        kept = {i for i in kept if scores[i] >= kth}
    if top_p is not None:
        total = sum(math.exp(scores[i]) for i in kept)
        mass, nucleus = 0.0, set()
        for i in sorted(kept, key=lambda i: -scores[i]):
            if mass >= top_p:
                break
            nucleus.add(i)
            mass += math.exp(scores[i]) / total
        kept = nucleus
    total = sum(math.exp(scores[i]) for i in kept)
    return torch.tensor([math.exp(s) / total if i in kept else 0.0 for i, s in enumerate(scores)], dtype=torch.float64)


def hugging_face_distribution(logits, temperature=1.0, top_k=None, top_p=None):
    scores = TemperatureLogitsWarper(temperature)(None, torch.tensor([logits], dtype=torch.float64))
    scores = scores if top_k is None else TopKLogitsWarper(top_k)(None, scores)
    return (scores if top_p is None else TopPLogitsWarper(top_p)(None, scores)).softmax(-1)[0]


def draw_counts(logits, seed, **rule):
    rows = torch.tensor([logits]).expand(DRAWS, -1)
    draws = sampling.choose_next(rows, do_sample=True, generator=torch.Generator().manual_seed(seed), **rule)
    return torch.bincount(draws, minlength=len(logits))


@pytest.mark.parametrize("name", RULES)
def test_the_reference_is_hugging_faces_distribution(name):
    torch.testing.assert_close(reference_distribution(LOGITS, **RULES[name]),
                               hugging_face_distribution(LOGITS, **RULES[name]))


@pytest.mark.parametrize("name", RULES)
def test_the_sampler_is_rejected_on_at_most_one_of_20_seeds(name):
    expected = reference_distribution(LOGITS, **RULES[name])
    p_values = [g_test(draw_counts(LOGITS, seed, **RULES[name]), expected).p_value for seed in SEEDS]
    assert sum(p < ALPHA for p in p_values) <= ALLOWED_REJECTIONS, (name, p_values)


def tiny_model_logits():
    torch.manual_seed(0)
    model = GPT(GPTConfig(vocab_size=12, hidden_size=16, num_attention_heads=2, num_hidden_layers=1,
                          intermediate_size=32, max_position_embeddings=16)).eval()
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.mul_(4)  # GPT-2's N(0, 0.02) gives nearly uniform logits; spread them out
        prompt = torch.tensor([[3, 1, 4, 1, 5]])
        return model, prompt, model(prompt).logits[0, -1].double().tolist()


def test_generate_draws_the_first_token_from_the_models_distribution():
    """The whole path: the model's logits for a fixed prompt, through generate, 20 seeds (one may reject)."""
    model, prompt, logits = tiny_model_logits()
    rule = {"temperature": 0.8, "top_k": 8, "top_p": 0.9}
    expected = reference_distribution(logits, **rule)
    assert 2 < int((expected > 0).sum()) < 12 and expected.max() < 0.7, "the cuts bite and the draws vary"
    rejected = []
    for seed in SEEDS:
        out = generate(model, prompt.expand(DRAWS, -1), max_new_tokens=1, do_sample=True,
                       generator=torch.Generator().manual_seed(seed), **rule)
        rejected += [seed] * g_test(torch.bincount(out[:, -1], minlength=12), expected).rejects(ALPHA)
    assert len(rejected) <= ALLOWED_REJECTIONS, rejected


# The planted bugs: each replaces one piece of the sampler, as a student's plausible mistake would.
def top_p_one_too_few(logits, top_p, right_filter=sampling.top_p_filter):
    kept = torch.isfinite(right_filter(logits, top_p))  # the right nucleus, then drop its least likely member
    least = logits.masked_fill(~kept, float("inf")).argmin(dim=-1, keepdim=True)
    drop = kept.sum(-1, keepdim=True) > 1
    return logits.scatter(-1, least, float("-inf")).where(drop, logits).masked_fill(~kept, float("-inf"))


def temperature_after_softmax(logits, temperature, top_k, top_p):
    probs = logits.softmax(-1) / temperature  # dividing probabilities, then renormalising: no effect at all
    return probs / probs.sum(-1, keepdim=True)


def top_k_ties_by_index(logits, top_k):
    keep = torch.zeros_like(logits, dtype=torch.bool).scatter(-1, logits.topk(top_k, dim=-1).indices, True)
    return logits.masked_fill(~keep, float("-inf"))  # exactly k tokens: one of the tied ones is dropped


@pytest.mark.parametrize("piece, bug, name", [("top_p_filter", top_p_one_too_few, "top-p 0.9"),
                                              ("top_p_filter", top_p_one_too_few, "top-p 0.6"),
                                              ("filtered_probs", temperature_after_softmax, "temperature 0.5"),
                                              ("top_k_filter", top_k_ties_by_index, "top-k 2 (a tie)")])
def test_each_planted_bug_is_rejected_on_every_seed(monkeypatch, piece, bug, name):
    monkeypatch.setattr(sampling, piece, bug)
    expected = reference_distribution(LOGITS, **RULES[name])
    for seed in SEEDS:
        result = g_test(draw_counts(LOGITS, seed, **RULES[name]), expected)
        assert result.rejects(ALPHA), (name, seed, result)


def test_g_statistic_and_p_value_match_scipy():
    generator = torch.Generator().manual_seed(0)
    probs = torch.rand(10, generator=generator, dtype=torch.float64) + 0.2
    probs /= probs.sum()
    counts = torch.multinomial(probs, 500, replacement=True, generator=generator).bincount(minlength=10)
    ours = g_test(counts, probs)
    theirs = power_divergence(counts.numpy(), 500 * probs.numpy(), lambda_="log-likelihood")
    assert ours.dof == 9
    assert ours.statistic == pytest.approx(theirs.statistic) and ours.p_value == pytest.approx(theirs.pvalue)
    for x, dof in ((0.5, 1), (3.0, 2), (20.0, 7), (150.0, 99)):
        assert chi_square_sf(x, dof) == pytest.approx(chi2.sf(x, dof))


def test_rare_outcomes_are_pooled_and_impossible_ones_reject():
    probs = torch.tensor([0.5, 0.49, 0.006, 0.004, 0.0], dtype=torch.float64)
    pooled = g_test(torch.tensor([50, 45, 4, 1, 0]), probs)  # expected 0.6 and 0.4: a pooled cell of 1.0 < 5
    assert pooled.dof == 1  # ... joins the smallest other cell (49): cells (50 vs 50) and (50 vs 50)
    assert pooled.statistic == pytest.approx(0.0, abs=1e-12)
    three = torch.tensor([0.5, 0.3, 0.15, 0.03, 0.02], dtype=torch.float64)  # N = 200: 100, 60, 30, then 6 + 4
    pooled = g_test(torch.tensor([90, 70, 28, 8, 4]), three)  # the pooled cell (E = 10 >= 5) stays on its own
    assert pooled.dof == 3
    assert pooled.statistic == pytest.approx(power_divergence([90, 70, 28, 12], [100, 60, 30, 10],
                                                              lambda_="log-likelihood").statistic)
    impossible = g_test(torch.tensor([50, 49, 0, 0, 1]), probs)
    assert impossible.p_value == 0.0 and impossible.rejects(ALPHA)


@pytest.mark.parametrize("counts, probs, message", [
    ([1, 2], [0.5, 0.25, 0.25], "counts and probs must cover the same outcomes, got \\(2,\\) and \\(3,\\)"),
    ([1, -2], [0.5, 0.5], "counts must be whole numbers >= 0"),
    ([1, 2], [0.5, 0.6], "probs must be a distribution .* got sum 1.1"),
    ([0, 0], [0.5, 0.5], "counts are all 0"),
    ([9, 0], [1.0, 0.0], "a single likely outcome")])
def test_bad_input_is_named(counts, probs, message):
    with pytest.raises(ValueError, match=message):
        g_test(torch.tensor(counts), torch.tensor(probs, dtype=torch.float64))


def test_bad_alpha_is_named():
    with pytest.raises(ValueError, match="alpha must be a finite number > 0 and < 1, got 1.5"):
        g_test(torch.tensor([5, 5]), torch.tensor([0.5, 0.5], dtype=torch.float64)).rejects(1.5)
