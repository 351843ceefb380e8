"""anatomy.interpret.induction: the data, the half losses and the scores on hand-made patterns (brute force), then one
training run: the phase change happens, the heads are where Olsson et al. say, and ablation removes the gain."""
import pytest
import torch

from anatomy.interpret.hooks import Hooks
from anatomy.interpret.induction import (ablate_heads, attention_only_model, half_losses, head_means, in_context_gain,
                                         induction_scores, patterns, previous_token_scores, repeated_tokens,
                                         train_induction)


def test_the_second_half_repeats_the_first_and_lengths_put_filler_first():
    ids = repeated_tokens(3, 5, 9, torch.Generator().manual_seed(0))
    assert ids.shape == (3, 11) and (ids[:, 0] == 0).all() and torch.equal(ids[:, 1:6], ids[:, 6:])
    assert ids[:, 1:].min() >= 1 and ids.max() <= 8
    ids = repeated_tokens(2, 5, 9, torch.Generator().manual_seed(0), lengths=torch.tensor([3, 5]))
    assert torch.equal(ids[0, 5:8], ids[0, 8:]) and torch.equal(ids[1, 1:6], ids[1, 6:])
    with pytest.raises(ValueError, match="half"):
        repeated_tokens(2, 1, 9, torch.Generator())


def test_half_losses_average_the_right_positions():
    ids = torch.tensor([[0, 1, 2, 3, 1, 2, 3]])  # N = 3: targets 2, 3 (first copy) and 2, 3 (the repeat)
    logits = torch.zeros(1, 7, 4)
    logits[0, 4, 2] = logits[0, 5, 3] = 50.0  # the repeat predicted perfectly, the first copy not at all
    first, second = half_losses(logits, ids)
    torch.testing.assert_close(first, torch.tensor(4.0).log())
    assert second < 1e-6


def test_scores_read_the_diagonals_olsson_et_al_define():
    T, half = 9, 4
    previous = torch.eye(T).roll(-1, dims=1).tril()  # query t attends to t - 1 ...
    previous[0, 0] = 1.0  # ... except the first, which has only itself
    induction = torch.zeros(T, T)
    for t in range(half + 1, T):
        induction[t, t - half + 1] = 1.0  # the token after the earlier copy of the current one
    pattern = torch.stack([previous, induction])[:, None, None].expand(2, 3, 1, T, T)  # (L, B, H, T, T)
    torch.testing.assert_close(previous_token_scores(pattern), torch.tensor([[1.0], [0.0]]))
    torch.testing.assert_close(induction_scores(pattern), torch.tensor([[0.0], [1.0]]))


def test_ablation_replaces_only_the_named_heads_by_zeros_or_by_their_means():
    z, means = torch.randn(2, 3, 4, 5, generator=torch.Generator().manual_seed(0)), torch.randn(3, 4, 5)
    for edited, expected in ((ablate_heads([1, 3])(z), torch.zeros(2, 3, 2, 5)),
                             (ablate_heads([1, 3], means)(z), means[:, [1, 3]].expand(2, -1, -1, -1))):
        torch.testing.assert_close(edited[:, :, [1, 3]], expected)
        torch.testing.assert_close(edited[:, :, [0, 2]], z[:, :, [0, 2]])
    assert z.abs().min() > 0  # the input itself is left alone


@pytest.fixture(scope="module")
def trained():
    torch.set_num_threads(1)
    model = attention_only_model()
    run = train_induction(model)
    ids = repeated_tokens(64, 12, 32, torch.Generator().manual_seed(1))
    return model, run, ids


def test_the_phase_change_happens_and_forms_a_previous_token_and_an_induction_head(trained):
    model, run, ids = trained
    assert run.phase_change_step() is not None
    assert sum(run.second_half[-50:]) < 0.5 * sum(run.first_half[-50:])
    pattern = patterns(model, ids)
    assert previous_token_scores(pattern)[0].max() > 0.4 and induction_scores(pattern)[1].max() > 0.4
    assert induction_scores(pattern)[0].max() < 0.1 and previous_token_scores(pattern)[1].max() < 0.1


def test_ablating_the_induction_heads_removes_the_gain_and_another_head_does_not(trained):
    model, _, ids = trained
    gain = in_context_gain(model, ids)
    scores = induction_scores(patterns(model, ids))
    heads = (scores[1] > 0.4).nonzero().flatten().tolist()
    other = int(previous_token_scores(patterns(model, ids))[0].argmin())  # layer 0's least previous-token head
    for means in (None, head_means(model, ids, 1)):
        assert in_context_gain(model, ids, {"blocks.1.z": ablate_heads(heads, means)}) < 0.1 * gain
    assert in_context_gain(model, ids, {"blocks.0.z": ablate_heads(other)}) > 0.8 * gain
    assert in_context_gain(model, ids, {"blocks.1.z": lambda z: None}) == gain  # an edit that keeps changes nothing
    with pytest.raises(ValueError, match=r"heads must be in 0 .. 3, got \[4\]"):
        with Hooks(model, edit={"blocks.1.z": ablate_heads(4)}):
            model(ids)


@pytest.mark.parametrize("T", [2, 3, 4, 6])
def test_scores_refuse_patterns_too_short_or_not_two_halves(T):
    with pytest.raises(ValueError, match=rf"pattern must be \(L, B, H, T, T\) weights on repeated sequences, T = 2N \+ 1 "
                                         rf">= 5, got \(2, 1, 1, {T}, {T}\)"):
        induction_scores(torch.full((2, 1, 1, T, T), 1 / T))


@pytest.mark.parametrize("T, lengths", [(3, None), (2, None), (7, torch.tensor([1]))])
def test_half_losses_refuse_halves_without_a_predicted_token(T, lengths):
    with pytest.raises(ValueError, match=r"ids must be \(B, 2N \+ 1\) with halves \(lengths\) of >= 2 tokens"):
        half_losses(torch.zeros(1, T, 4), torch.zeros(1, T, dtype=torch.long), lengths)


@pytest.mark.parametrize("lengths", [torch.tensor([5, 2]), torch.tensor([0, 2]), torch.tensor([2.0, 2.0]), torch.tensor([2])])
def test_repeats_longer_than_half_are_refused(lengths):
    with pytest.raises(ValueError, match=r"lengths must be a \(2,\) integer tensor in 1 .. half \(4\), got"):
        repeated_tokens(2, 4, 10, torch.Generator().manual_seed(0), lengths)
