"""The generic training loop, the schedule, the loss, and the trained dates model notebook 07 saves."""
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from anatomy import Transformer
from anatomy.tasks.dates import CharVocabulary, date_pairs
from anatomy.tasks.dates_translator import DATES_MODEL_DIR, dates_config, exact_match, train_dates, translate
from anatomy.tasks.training import token_cross_entropy, train, warmup_then_decay


def test_schedule_warms_up_then_decays_to_zero():
    values = [warmup_then_decay(step, 10, 100) for step in range(100)]
    assert values[0] == pytest.approx(0.1) and values[9] == pytest.approx(1.0)
    assert all(a < b for a, b in zip(values[:10], values[1:10]))
    assert all(a > b for a, b in zip(values[10:], values[11:])) and values[-1] == pytest.approx(1 / 90)


@pytest.mark.parametrize("warmup", [0, 5, 10])
def test_schedule_never_divides_by_zero(warmup):
    """All warm-up (warmup == total) or none: every step has a finite multiplier, 0 from total on."""
    values = [warmup_then_decay(step, warmup, 10) for step in range(12)]
    assert all(0.0 <= v <= 1.0 for v in values) and values[10] == values[11] == 0.0


def test_loss_ignores_padding_and_matches_torch():
    logits, labels = torch.randn(2, 3, 7), torch.tensor([[4, 5, 0], [6, 0, 0]])
    expected = F.cross_entropy(logits[labels != 0], labels[labels != 0], label_smoothing=0.1)
    torch.testing.assert_close(token_cross_entropy(logits, labels, ignore_id=0, label_smoothing=0.1), expected)


def test_the_loop_serves_any_task():
    """A task the loop has never heard of: least squares, whose answer we know."""
    torch.manual_seed(0)
    x = torch.randn(256, 3)
    y = x @ torch.tensor([[1.0], [-2.0], [0.5]])
    model = nn.Linear(3, 1, bias=False)
    batches = ((x[i % 8 * 32:(i % 8 + 1) * 32], y[i % 8 * 32:(i % 8 + 1) * 32]) for i in range(400))
    run = train(model, batches, lambda m, b: F.mse_loss(m(b[0]), b[1]), steps=400, peak_lr=0.05,
                warmup_steps=10, progress=False)
    torch.testing.assert_close(model.weight.detach(), torch.tensor([[1.0, -2.0, 0.5]]), atol=1e-3, rtol=0)
    assert run.losses[-1] < 1e-5 and not model.training


@pytest.mark.parametrize("steps, warmup, batch_count, message", [
    (0, 0, 10, "steps must be an integer >= 1, got 0"),
    (5, 6, 10, r"warmup_steps must be an integer in \[0, 5\], got 6 \(0 to steps = 5\)"),
    (5, 0, 2, "batches ran out after 2 of 5 steps")])
def test_bad_training_arguments_are_named(steps, warmup, batch_count, message):
    batches = [torch.ones(1, 1)] * batch_count
    with pytest.raises(ValueError, match=message):
        train(nn.Linear(1, 1), batches, lambda m, b: m(b).sum(), steps, warmup_steps=warmup, progress=False)


@pytest.mark.parametrize("loss_fn, got", [
    (lambda m, b: 1.0, "got 1.0"),
    (lambda m, b: m(b), r"got a tensor of shape \(1, 1\), requires_grad=True"),
    (lambda m, b: torch.tensor(1.0), r"got a tensor of shape \(\), requires_grad=False")])
def test_a_loss_that_is_not_a_scalar_from_the_model_is_named(loss_fn, got):
    with pytest.raises(ValueError, match=rf"loss_fn must return a scalar tensor computed from the model's output, {got}"):
        train(nn.Linear(1, 1), [torch.ones(1, 1)], loss_fn, 1, warmup_steps=0, progress=False)


def test_token_cross_entropy_shapes_must_agree():
    with pytest.raises(ValueError, match=r"logits must be \(B, T, V\) and labels \(B, T\).*\(2, 4, 40\) and \(2, 5\)"):
        token_cross_entropy(torch.randn(2, 4, 40), torch.randint(0, 40, (2, 5)), 0)


def test_a_few_steps_lower_the_loss():
    vocab = CharVocabulary()
    torch.manual_seed(0)
    model = Transformer(dates_config(vocab))
    run = train_dates(model, vocab, steps=30, warmup_steps=5, progress=False)
    assert len(run.losses) == len(run.learning_rates) == 30
    assert sum(run.losses[-5:]) / 5 < 0.7 * sum(run.losses[:5]) / 5
    assert not model.training, "train() hands the model back in eval mode"


def test_the_saved_model_translates_unseen_dates():
    """The weights notebook 07 trained and saved: the later notebooks and the homework rely on them."""
    vocab = CharVocabulary()
    model = Transformer.from_pretrained(DATES_MODEL_DIR)
    assert exact_match(model, date_pairs(300, "held_out", seed=11), vocab) >= 0.98
    assert translate(model, ["Friday, December 31, 1999"], vocab) == ["1999-12-31"]


def test_a_negative_learning_rate_and_a_diverging_loss_are_named():
    batches = [torch.ones(1, 1)] * 3
    with pytest.raises(ValueError, match="peak_lr must be a finite number > 0, got -0.01"):
        train(nn.Linear(1, 1), batches, lambda m, b: m(b).sum(), 3, peak_lr=-0.01, warmup_steps=0, progress=False)
    with pytest.raises(ValueError, match=r"max_grad_norm must be a finite number > 0, got 0 \(or None"):
        train(nn.Linear(1, 1), batches, lambda m, b: m(b).sum(), 3, warmup_steps=0, max_grad_norm=0, progress=False)
    with pytest.raises(ValueError, match=r"the loss is nan at step 1: training has diverged"):
        train(nn.Linear(1, 1), [torch.ones(1, 1), torch.full((1, 1), float("nan"))], lambda m, b: m(b).sum(), 2,
              warmup_steps=0, progress=False)


@pytest.mark.parametrize("argument, value", [("step", float("nan")), ("step", None), ("step", -1),
                                             ("warmup_steps", float("nan")), ("warmup_steps", -1)])
def test_warmup_then_decay_refuses_steps_that_are_not_counts(argument, value):
    # a NaN step or warm-up gave a NaN learning rate without a word
    kwargs = {"step": 5, "warmup_steps": 10, "total_steps": 100, argument: value}
    with pytest.raises((TypeError, ValueError), match=argument):
        warmup_then_decay(**kwargs)


def test_exact_match_and_translate_name_what_is_wrong():
    # exact_match of no pairs divided by zero; translate's None model/vocab raised AttributeErrors, batch_size=0 range()'s error
    vocab = CharVocabulary()
    model = Transformer(dates_config(vocab)).eval()
    for call, argument in [(lambda: exact_match(model, [], vocab), "pairs"), (lambda: translate(None, ["1 may 2020"], vocab), "model"),
                           (lambda: translate(model, ["1 may 2020"], None), "vocab"),
                           (lambda: translate(model, ["1 may 2020"], vocab, batch_size=0), "batch_size")]:
        with pytest.raises((TypeError, ValueError), match=argument):
            call()


def test_dates_config_and_batches_name_a_vocab_batch_size_or_seed_that_is_wrong():
    # dates_config(None): "object of type 'NoneType' has no len()"; training_batches(batch_size=0) said
    # "count must be ..." (date_pairs' argument) at the first next(); translate(texts=None): len() of None (#37)
    from anatomy.tasks.dates_translator import training_batches

    vocab = CharVocabulary()
    for call, message in [(lambda: dates_config(None), "vocab must be CharVocabulary, got NoneType"),
                          (lambda: training_batches(None), "vocab must be CharVocabulary, got NoneType"),
                          (lambda: training_batches(vocab, batch_size=0), "batch_size must be an integer >= 1, got 0"),
                          (lambda: training_batches(vocab, seed=None), "seed must be an integer >= 0, got None"),
                          (lambda: translate(Transformer(dates_config(vocab)), None, vocab),
                           "texts must be a list of texts"),
                          (lambda: translate(Transformer(dates_config(vocab)), ["1 may 2020", 3], vocab),
                           r"texts must hold strings only, got \(position, type\) \[\(1, 'int'\)\]")]:
        with pytest.raises((TypeError, ValueError), match=message):
            call()  # refused at the call, before any batch is drawn
