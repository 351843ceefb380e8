import pytest
import torch

from anatomy.tasks.lookback import LookbackConfig, LookbackModel, lookback_batches, lookback_loss, lookback_targets


def test_targets_are_the_tokens_that_many_steps_back():
    tokens = torch.randint(16, (2, 12))
    targets, positions = lookback_targets(tokens, (1, 3, 5))
    for h, lookback in enumerate((1, 3, 5)):
        for t in range(5, 12):  # the first position every head has a target for
            assert targets[:, h, t - 5].tolist() == tokens[:, t - lookback].tolist()
    assert positions == slice(5, None)


def test_model_is_causal_and_its_heads_stay_within_their_spans():
    config = LookbackConfig(lookbacks=(1, 2), length=20, max_span=8, ramp=2.0)
    model = LookbackModel(config).eval()
    with torch.no_grad():
        model.span.span_fraction.copy_(torch.tensor([0.25, 0.5]))  # spans 2 and 4
    tokens = next(lookback_batches(config))
    logits, weights = model(tokens)
    assert logits.shape == (config.batch_size, 2, 20, config.vocab_size)
    torch.testing.assert_close(weights.sum(-1), torch.ones(config.batch_size, 2, 20))
    offsets = torch.arange(20)[:, None] - torch.arange(20)[None, :]
    assert (weights[..., offsets < 0] == 0).all()  # no future token
    assert (weights[:, 0][..., offsets >= 4] == 0).all() and (weights[:, 1][..., offsets >= 6] == 0).all()
    changed = tokens.clone()
    changed[:, 10:] = (changed[:, 10:] + 1) % config.vocab_size  # the future must not change the past
    torch.testing.assert_close(model(changed)[0][:, :, :10], logits[:, :, :10])
    assert torch.isfinite(lookback_loss(model, tokens))


def test_a_config_out_of_range_is_refused_where_it_is_made():
    import pytest

    with pytest.raises(ValueError, match=r"lookbacks must be a non-empty tuple of integers in \[1, length = 8\)"):
        LookbackConfig(lookbacks=(1, 8), length=8)
    with pytest.raises(ValueError, match=r"lookbacks must be .*got \(\)"):
        LookbackConfig(lookbacks=())
    with pytest.raises(ValueError, match="batch_size must be an integer >= 1, got 0"):
        LookbackConfig(batch_size=0)  # lookback_batches would yield empty batches forever
    with pytest.raises(ValueError, match="ramp must be a finite number > 0, got 0"):
        LookbackConfig(ramp=0)


def test_tokens_longer_than_the_config_or_outside_the_vocabulary():
    import pytest

    model = LookbackModel(LookbackConfig(lookbacks=(1, 2), length=8, vocab_size=5, max_span=4))
    with pytest.raises(ValueError, match=r"tokens has 9 positions, more than config.length \(8\)"):
        model(torch.zeros(1, 9, dtype=torch.long))
    with pytest.raises(ValueError, match=r"tokens must lie in \[0, 5\), got values from 0 to 5"):
        model(torch.tensor([[0, 5]]))
    with pytest.raises(ValueError, match=r"tokens must be \(B, T\) with T > the longest lookback \(2\)"):
        lookback_loss(model, torch.zeros(1, 2, dtype=torch.long))


def test_accuracy_is_never_counted_from_nan_logits():
    import pytest

    from anatomy.tasks.lookback import lookback_accuracy

    model = LookbackModel(LookbackConfig(lookbacks=(1, 2), length=8, vocab_size=5, max_span=4))
    with torch.no_grad():
        model.readout[0, 0, 0] = float("nan")
    with pytest.raises(ValueError, match="logits hold NaN"):
        lookback_accuracy(model, torch.randint(5, (2, 8), generator=torch.Generator().manual_seed(0)))


def test_lookback_pieces_name_a_wrong_config_model_or_seed():
    # None raised AttributeErrors, a float seed torch's "manual_seed expected a long"
    config = LookbackConfig(lookbacks=(1, 2), vocab_size=6, length=8, head_dim=4, max_span=6, batch_size=2)
    for call, argument in [(lambda: lookback_batches(None), "config"), (lambda: lookback_batches(config, 2.5), "seed"),
                           (lambda: LookbackModel(None), "config"), (lambda: lookback_loss(None, torch.zeros(2, 8).long()), "model")]:
        with pytest.raises((TypeError, ValueError), match=argument):
            call()


def test_lookback_targets_names_wrong_tokens_or_lookbacks():
    # None tokens raised AttributeError ('dim'), None lookbacks "'NoneType' object is not iterable", () lookbacks
    # "max() arg is an empty sequence" (found by the sweep, #37)
    tokens = torch.randint(6, (2, 8))
    for call, message in [(lambda: lookback_targets(None, (1, 2)), "tokens must be an integer tensor, got NoneType"),
                          (lambda: lookback_targets(tokens, None), "lookbacks must be a tuple of lookbacks, one per head"),
                          (lambda: lookback_targets(tokens, ()), r"lookbacks must be a non-empty tuple of integers >= 1"),
                          (lambda: lookback_targets(tokens, (1, 0)), r"lookbacks must be a non-empty tuple of integers >= 1")]:
        with pytest.raises((TypeError, ValueError), match=message):
            call()
