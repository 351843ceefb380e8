"""Notebook 16's pre-training pieces: the tokenizer adapter, the sequences, the loss (against the full forward,
itself checked against BertForMaskedLM in test_masked_lm.py), snapshots, the baseline, the comparison's parts."""
import math

import pytest
import torch
from scipy import stats

from anatomy.corpora.stdlib_docstrings import stdlib_sentences
from anatomy.models.masked_lm import TransformerForMaskedLM
from anatomy.tasks.mlm_pretraining import (blank_log_probs, fill_in_blank, masked_batches, masked_lm_loss, pretrain,
                                           pretraining_sequences, small_bert_config, train_tokenizer, unigram_entropy)
from anatomy.tasks import pretraining_payoff
from anatomy.tasks.pretraining_payoff import classifier_from, mean_interval, paired_gain, recipe_for


@pytest.fixture(scope="module")
def tokenizer():
    return train_tokenizer(stdlib_sentences(300) + ["난 너를 좋아해", "난 너를 싫어해"], vocab_size=400)


@pytest.fixture(scope="module")
def sequences(tokenizer):
    return pretraining_sequences(tokenizer, stdlib_sentences(300), max_length=16)


def tiny_model(tokenizer):
    config = small_bert_config(len(tokenizer))
    config.hidden_size, config.intermediate_size, config.max_position_embeddings = 32, 64, 16
    torch.manual_seed(0)
    return TransformerForMaskedLM(config)


def test_sentence_tokenizer_adds_cls_sep_and_truncates(tokenizer):
    assert tokenizer.all_special_ids == [0, 1, 2, 3] and tokenizer.pad_token_id == 0 and tokenizer.mask_token_id == 3
    text = "Return the number of items in a container."
    ids = tokenizer([text], max_length=6)["input_ids"][0]
    assert ids == [1, *tokenizer.bpe.encode(text)[:4], 2]
    assert tokenizer.bpe.decode(tokenizer([text])["input_ids"][0][1:-1]) == text
    with pytest.raises(TypeError, match="wrap it in a list"):
        tokenizer(text)


def test_long_texts_are_cut_into_pieces_and_nothing_is_dropped(tokenizer, sequences):
    assert max(map(len, sequences)) == 16
    assert all(ids[0] == 1 and ids[-1] == 2 for ids in sequences)
    body = [token for ids in sequences for token in ids[1:-1]]
    assert body == [token for text in stdlib_sentences(300) for token in tokenizer.bpe.encode(text)]


def test_loss_on_chosen_tokens_equals_the_full_forward(tokenizer, sequences):
    model = tiny_model(tokenizer).eval()
    batch = next(masked_batches(sequences, tokenizer, batch_size=8, seed=0))
    full = model(batch.input_ids, batch.attention_mask, labels=batch.labels).loss
    torch.testing.assert_close(masked_lm_loss(model, batch), full)


def test_batches_are_masked_anew_each_time(tokenizer):
    same = [[1, 10, 11, 12, 13, 14, 15, 16, 17, 2]] * 4
    first, second = (batch.labels for batch, _ in zip(masked_batches(same, tokenizer, batch_size=4, seed=0), range(2)))
    assert not torch.equal(first, second)  # dynamic masking (Liu et al. 2019): a new mask per visit


def test_snapshots_are_the_weights_after_that_many_steps(tokenizer, sequences):
    model = tiny_model(tokenizer)
    initial = {k: v.clone() for k, v in model.encoder.state_dict().items()}
    run, snapshots = pretrain(model, masked_batches(sequences, tokenizer, 8), 6, snapshot_steps=(0, 3, 6),
                              progress=False)
    assert sorted(snapshots) == [0, 3, 6] and len(run.losses) == 6
    for name, value in initial.items():
        assert torch.equal(snapshots[0][name], value)
        assert torch.equal(snapshots[6][name], model.encoder.state_dict()[name])
    assert not torch.equal(snapshots[3]["embeddings.token_embeddings.weight"], initial["embeddings.token_embeddings.weight"])


def test_unigram_entropy_against_scipy(tokenizer, sequences):
    counts = torch.bincount(torch.tensor([t for ids in sequences for t in ids if t > 3]))
    assert unigram_entropy(sequences, tokenizer.all_special_ids) == pytest.approx(stats.entropy(counts[counts > 0]))
    assert unigram_entropy([[1, 5, 5, 6, 6, 2]], [0, 1, 2, 3]) == pytest.approx(math.log(2))


def test_classifier_arms_differ_only_in_the_encoder(tokenizer):
    config = tiny_model(tokenizer).config
    pretrained = {k: v + 1 for k, v in classifier_from(config, None, seed=9).encoder.state_dict().items()}
    a, b = classifier_from(config, None, seed=1), classifier_from(config, pretrained, seed=1)
    for name, value in a.state_dict().items():
        assert torch.equal(value, b.state_dict()[name]) == (not name.startswith("encoder.")), name
    assert a.classifier.out_features == 2 and a.pooler.weight.std() < 0.03  # BERT's initialisation, two labels


def test_mean_interval_against_scipy():
    values = [0.61, 0.64, 0.6, 0.66, 0.63]
    mean, half = mean_interval(values)
    low, high = stats.t.interval(0.95, len(values) - 1, loc=sum(values) / 5, scale=stats.sem(values))
    assert mean == pytest.approx((low + high) / 2) and half == pytest.approx((high - low) / 2)
    with pytest.raises(ValueError, match="at least 2 values"):
        mean_interval([0.6])
    result = {"runs": {"0": {"accuracy": [0.6, 0.62, 0.61]}, "10": {"accuracy": [0.65, 0.66, 0.67]}}}
    assert paired_gain(result, 10)[0] == pytest.approx(0.05)


def test_fill_in_blank_reads_the_mask_position(tokenizer):
    model = tiny_model(tokenizer).eval()
    text = "Return the [MASK] of items."
    left_ids = tokenizer.bpe.encode("Return the")
    ids = torch.tensor([[1, *left_ids, 3, *tokenizer.bpe.encode(" of items."), 2]])
    expected = model(ids).logits[0, 1 + len(left_ids)]
    guesses = fill_in_blank(model, tokenizer, text, k=3)
    assert guesses == [tokenizer.bpe.decode([int(i)]) for i in expected.topk(3).indices]
    torch.testing.assert_close(blank_log_probs(model, tokenizer, text), expected.log_softmax(-1))
    for bad in ("no blank", "[MASK] and [MASK]"):
        with pytest.raises(ValueError, match="exactly one \\[MASK\\]"):
            fill_in_blank(model, tokenizer, bad)


def test_the_shipped_pretraining_loads():
    """make pretrain's files: the tokenizer, the model (in BertForMaskedLM's names) and the comparison."""
    import json

    from anatomy.tokenizers.bpe import ByteLevelBPE
    from anatomy.tasks.mlm_pretraining import PRETRAINED_DIR
    from anatomy.tasks.pretraining_payoff import COMPARISON_FILE

    tokenizer = ByteLevelBPE.load(PRETRAINED_DIR / "tokenizer.json")
    model = TransformerForMaskedLM.from_pretrained(PRETRAINED_DIR)
    assert model.missing_keys == [] and tokenizer.vocab_size == model.config.vocab_size == 4000
    assert model.head.decoder_weight is model.encoder.embeddings.token_embeddings.weight
    comparison = json.loads(COMPARISON_FILE.read_text())
    assert comparison["label_pool"] == "validation" and set(comparison["tuning"]) == {"0", "1400"}
    for arm in comparison["tuning"].values():  # the same trials for both arms; the best mean chosen
        assert [(t["peak_lr"], t["steps"]) for t in arm["trials"]] == list(pretraining_payoff.TRIALS)
        best = max(arm["trials"], key=lambda trial: sum(trial["accuracy"]))
        assert arm["chosen"] == {"peak_lr": best["peak_lr"], "steps": best["steps"]}
    assert set(comparison["by_training_size"]) == {"100", "250", "500", "1000"}
    for result in comparison["by_training_size"].values():
        assert set(result["runs"]) == {"0", "1400"}
        assert all(len(run["accuracy"]) == len(result["seeds"]) == 8 for run in result["runs"].values())


@pytest.mark.parametrize("confidence", [1.5, 1, 0, -0.2, float("nan"), "0.95"])
def test_mean_interval_refuses_a_confidence_outside_zero_one(confidence):
    with pytest.raises(ValueError, match=r"confidence must be a finite number > 0 and < 1, got"):
        mean_interval([0.6, 0.62, 0.61], confidence)


@pytest.mark.parametrize("values", [[0.6, float("nan")], "0.6", None, [0.6, None]])
def test_mean_interval_refuses_values_that_are_not_finite_numbers(values):
    with pytest.raises(ValueError, match=r"values"):
        mean_interval(values)


def test_paired_gain_refuses_runs_that_do_not_pair_seed_by_seed():
    result = {"seeds": [0, 1, 2, 3, 4], "runs": {"0": {"accuracy": [0.6, 0.62, 0.61, 0.6, 0.6]},
                                                 "10": {"accuracy": [0.65, 0.66, 0.67]}}}
    with pytest.raises(ValueError, match=r"one accuracy per seed \(5 seeds\), got 5 and 3"):
        paired_gain(result, 10)
    with pytest.raises(ValueError, match=r"step must be one of the compared pre-training steps \[0, 10\].*got 20"):
        paired_gain(result, 20)


def test_masked_lm_loss_refuses_a_batch_with_nothing_to_predict(tokenizer, sequences):
    batch = next(masked_batches(sequences, tokenizer, batch_size=4))
    batch.labels.fill_(-100)
    with pytest.raises(ValueError, match=r"batch.labels are all -100: no token to predict"):
        masked_lm_loss(tiny_model(tokenizer), batch)


@pytest.mark.parametrize("sequences, special_ids, error", [([], [0, 1], ValueError), ([[0, 1, 1]], [0, 1], ValueError),
                                                           ([[5, 6]], None, TypeError)])
def test_unigram_entropy_of_no_tokens_is_refused(sequences, special_ids, error):
    with pytest.raises(error, match=r"sequences must hold at least one token|special_ids must be"):
        unigram_entropy(sequences, special_ids)


def test_a_string_where_texts_go_is_refused(tokenizer):
    for call in (lambda: pretraining_sequences(tokenizer, "one text"), lambda: tokenizer("one text"),
                 lambda: train_tokenizer("one text", 300)):
        with pytest.raises(TypeError, match=r"texts must be a list of texts, got one str .*pass \[text\]"):
            call()
    with pytest.raises(TypeError, match=r"texts must be a list of texts \(strings\), got NoneType"):
        pretraining_sequences(tokenizer, None)


@pytest.mark.parametrize("max_length", [1, 2, 0, 2.5])
def test_max_length_must_leave_room_for_a_token(tokenizer, max_length):
    with pytest.raises(ValueError, match=r"max_length must be an integer >= 3, got .*\[CLS\] and \[SEP\] take two"):
        pretraining_sequences(tokenizer, ["a text"], max_length=max_length)
    with pytest.raises(ValueError, match=r"max_length must be an integer >= 3"):
        tokenizer(["a text"], max_length=max_length)


def test_fill_in_blank_refuses_nan_scores(tokenizer):
    model = tiny_model(tokenizer).eval()
    with torch.no_grad():
        model.head.bias[5] = float("nan")
    with pytest.raises(ValueError, match=r"log-probabilities at \[MASK\] hold NaN"):
        fill_in_blank(model, tokenizer, "Return the [MASK] of items.")


def test_recipe_for_gives_the_steps_asked_for_at_every_size():
    for size in (100, 250, 1000):
        recipe = recipe_for(2e-3, 40, size)
        assert recipe.peak_lr == 2e-3 and round(recipe.epochs * size / recipe.batch_size) == 40
    for name, args in (("peak_lr", (0.0, 40, 100)), ("steps", (1e-3, 0, 100)), ("size", (1e-3, 40, 0))):
        with pytest.raises(ValueError, match=f"{name} must be"):
            recipe_for(*args)


def fake_fine_tuning(monkeypatch):
    """fine_tuned_accuracy replaced by a record of its calls; the score favours lr 2e-3 for random weights and
    lr 5e-4 for the 'pre-trained' state, so each arm's tuning must find its own recipe."""
    calls = []

    def fake(config, state, tokenizer, train_split, test_split, seed, recipe):
        calls.append((state, len(train_split), test_split, seed, recipe.peak_lr,
                      round(recipe.epochs * len(train_split) / recipe.batch_size)))
        wanted = 2e-3 if state is None else 5e-4
        return (0.9 if recipe.peak_lr == wanted else 0.6) + 0.001 * seed, 0.0

    monkeypatch.setattr(pretraining_payoff, "fine_tuned_accuracy", fake)
    return calls


def test_each_arm_gets_its_own_recipe_from_the_same_trials(monkeypatch):
    from anatomy.corpora.sentiment_data import Reviews

    calls = fake_fine_tuning(monkeypatch)
    pool = Reviews([f"s{i}" for i in range(1000)], [i % 2 for i in range(1000)], [0.0] * 1000)
    tuning, test = pool.subset(300), pool.subset(200)
    trained = {"w": torch.zeros(1)}
    result = pretraining_payoff.payoff(None, {"0": None, "1400": trained}, None, pool, tuning, test, (100, 1000),
                                       range(3), log=lambda line: None)
    assert result["tuning"]["0"]["chosen"]["peak_lr"] == 2e-3
    assert result["tuning"]["1400"]["chosen"]["peak_lr"] == 5e-4
    tuning_calls = [call for call in calls if call[2] is tuning]
    assert len(tuning_calls) == 2 * len(pretraining_payoff.TRIALS) * len(pretraining_payoff.TUNING_SEEDS)
    assert {call[1] for call in tuning_calls} == {pretraining_payoff.TUNING_SIZE}
    assert {call[3] for call in tuning_calls} == set(pretraining_payoff.TUNING_SEEDS)
    final = [call for call in calls if call[2] is test]
    assert len(final) == 2 * 2 * 3  # arms x sizes x seeds, scored on the test split only
    for state, size, _, seed, lr, steps in final:
        chosen = result["tuning"]["0" if state is None else "1400"]["chosen"]
        assert (lr, steps) == (chosen["peak_lr"], chosen["steps"]) and size in (100, 1000) and seed in range(3)
    assert result["by_training_size"]["100"]["runs"]["0"]["accuracy"] == [0.9, 0.901, 0.902]
