"""Training pieces: the schedule, the loss, and the trained model that notebook 07 saves."""
import pytest
import torch
import torch.nn.functional as F

from anatomy import Transformer
from anatomy.dates import CharVocabulary, date_pairs
from anatomy.training import (DATES_MODEL_DIR, dates_config, exact_match, train, translate, translation_loss,
                              warmup_then_decay)


def test_schedule_warms_up_then_decays_to_zero():
    values = [warmup_then_decay(step, 10, 100) for step in range(100)]
    assert values[0] == pytest.approx(0.1) and values[9] == pytest.approx(1.0)
    assert all(a < b for a, b in zip(values[:10], values[1:10]))
    assert all(a > b for a, b in zip(values[10:], values[11:])) and values[-1] == pytest.approx(1 / 90)


def test_loss_ignores_padding_and_matches_torch():
    logits, labels = torch.randn(2, 3, 7), torch.tensor([[4, 5, 0], [6, 0, 0]])
    expected = F.cross_entropy(logits[labels != 0], labels[labels != 0], label_smoothing=0.1)
    torch.testing.assert_close(translation_loss(logits, labels, pad_id=0, label_smoothing=0.1), expected)


def test_a_few_steps_lower_the_loss():
    vocab = CharVocabulary()
    torch.manual_seed(0)
    model = Transformer(dates_config(vocab))
    run = train(model, vocab, steps=30, warmup_steps=5, progress=False)
    assert len(run.losses) == len(run.learning_rates) == 30
    assert sum(run.losses[-5:]) / 5 < 0.7 * sum(run.losses[:5]) / 5
    assert not model.training, "train() hands the model back in eval mode"


def test_the_saved_model_translates_unseen_dates():
    """The weights notebook 07 trained and saved: the later notebooks and the homework rely on them."""
    vocab = CharVocabulary()
    model = Transformer.from_pretrained(DATES_MODEL_DIR)
    assert exact_match(model, date_pairs(300, "held_out", seed=11), vocab) >= 0.98
    assert translate(model, ["Friday, December 31, 1999"], vocab) == ["1999-12-31"]
