import torch

from anatomy.lookback import LookbackConfig, LookbackModel, lookback_batches, lookback_loss, lookback_targets


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
