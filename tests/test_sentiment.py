import pytest
import torch
import torch.nn.functional as F

from anatomy import TransformerForSequenceClassification
from anatomy.tasks.linear_probe import sentence_vectors, train_probe
from anatomy.tasks.sentiment import Analyser, FineTuningRecipe, classification_loss, predict_probabilities


@pytest.fixture(scope="module")
def classifier():
    torch.manual_seed(0)
    return TransformerForSequenceClassification.from_pretrained(num_labels=2)


SENTENCES = ["A gorgeous, moving film.", "Dull.", "The plot is a mess and the actors look bored the whole time.",
             "I laughed, I cried, I bought the soundtrack."]


def test_an_empty_batch_is_refused(classifier, pretrained):
    with pytest.raises(ValueError, match="empty batch"):
        predict_probabilities(classifier, pretrained[0], [])


def test_classification_loss_is_cross_entropy():
    logits, labels = torch.randn(5, 3), torch.tensor([0, 2, 1, 1, 0])
    expected = -F.log_softmax(logits, -1)[torch.arange(5), labels].mean()
    torch.testing.assert_close(classification_loss(logits, labels), expected)


@pytest.mark.parametrize("labels, message", [
    (torch.tensor([0, 2]), r"labels must lie in 0..1 \(num_labels = 2\), got values from 0 to 2"),
    (torch.tensor([-1, 1]), r"labels must lie in 0..1"),
    (torch.tensor([0.0, 1.0]), r"labels must be int64 of shape \(2,\), got torch.float32 of shape \(2,\)"),
    (torch.tensor([[0], [1]]), r"got torch.int64 of shape \(2, 1\)"),
])
def test_bad_labels(labels, message):
    with pytest.raises(ValueError, match=message):
        classification_loss(torch.zeros(2, 2), labels)


def test_analyser_and_predictions_agree_with_one_sentence_at_a_time(classifier, pretrained):
    tokenizer, _ = pretrained
    together = predict_probabilities(classifier, tokenizer, SENTENCES)
    for sentence, row in zip(SENTENCES, together):
        batch = tokenizer(sentence, return_tensors="pt")
        with torch.no_grad():
            alone = classifier(batch.input_ids).softmax(-1)[0]
        torch.testing.assert_close(row, alone, atol=1e-5, rtol=0)
        assert Analyser(classifier, tokenizer)(sentence) == pytest.approx(alone[1].item(), abs=1e-5)


def test_sentence_vectors_are_hugging_faces_cls_state_and_mean_and_max_over_the_real_tokens(classifier, pretrained):
    tokenizer, model = pretrained  # sentences of different lengths: the shorter ones carry padding
    vectors = sentence_vectors(classifier.encoder, tokenizer, SENTENCES, batch_size=3)
    batch = tokenizer(SENTENCES, padding=True, return_tensors="pt")
    with torch.no_grad():
        states = model(**batch).last_hidden_state  # (N, T, D)
    expected = torch.stack([states[i, :n].mean(0) for i, n in enumerate(batch.attention_mask.sum(1).tolist())])
    torch.testing.assert_close(vectors["mean"], expected, atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(vectors["cls"], states[:, 0], atol=1e-4, rtol=1e-4)
    maxima = torch.stack([states[i, :n].max(0).values for i, n in enumerate(batch.attention_mask.sum(1).tolist())])
    torch.testing.assert_close(vectors["max"], maxima, atol=1e-4, rtol=1e-4)
    assert not torch.equal(vectors["max"], states.max(1).values), "the test needs padding that would win a max"


def test_a_probe_separates_separable_vectors():
    generator = torch.Generator().manual_seed(0)
    vectors = torch.randn(400, 8, generator=generator)
    labels = (vectors[:, 3] > 0).long().tolist()
    probe = train_probe(vectors, labels)
    accuracy = (probe(vectors).argmax(-1) == torch.tensor(labels)).float().mean().item()
    assert accuracy > 0.98


@pytest.mark.parametrize("field, value, message", [
    ("batch_size", 0, "batch_size must be an integer >= 1, got 0"),
    ("max_length", 0, r"max_length must be an integer >= 3, got 0"),
    ("peak_lr", -1e-4, "peak_lr must be a finite number > 0, got -0.0001"),
    ("epochs", 0, "epochs must be a finite number > 0, got 0"),
    ("warmup_fraction", 1.5, "warmup_fraction must be a finite number >= 0 and <= 1, got 1.5"),
    ("weight_decay", float("nan"), "weight_decay must be a finite number >= 0, got nan"),
    ("seed", float("nan"), "seed must be an integer >= 0, got nan"),  # was kept: a NaN seed fails only when training starts
])
def test_a_recipe_out_of_range_is_refused_where_it_is_made(field, value, message):
    with pytest.raises(ValueError, match=message):
        FineTuningRecipe(**{field: value})


def test_probe_settings_and_data_that_do_not_fit():
    vectors = torch.randn(40, 8, generator=torch.Generator().manual_seed(0))
    with pytest.raises(ValueError, match=r"batch_size \(256\) is larger than the 40 examples"):
        train_probe(vectors, [0, 1] * 20)
    with pytest.raises(ValueError, match=r"labels must be a \(40,\) integer tensor.*got shape \(39,\)"):
        train_probe(vectors, [0, 1] * 19 + [0], batch_size=8)
    with pytest.raises(ValueError, match="labels must lie in 0..1"):
        train_probe(vectors, [0, 2] * 20, batch_size=8)
    with pytest.raises(ValueError, match="peak_lr must be a finite number > 0, got 0"):
        train_probe(vectors, [0, 1] * 20, batch_size=8, peak_lr=0)
    with pytest.raises(ValueError, match=r"vectors must be a floating-point \(N, D\) tensor, got Tensor \(8,\)"):
        train_probe(vectors[0], [0, 1] * 4, batch_size=8)


def test_accuracy_is_never_counted_from_nan(classifier, pretrained):
    from anatomy.tasks.sentiment import accuracy
    from anatomy.corpora.sentiment_data import Reviews

    broken = TransformerForSequenceClassification(classifier.config)
    broken.load_state_dict(classifier.state_dict())
    with torch.no_grad():
        broken.classifier.bias[1] = float("nan")
    with pytest.raises(ValueError, match=r"predicted probabilities hold NaN"):
        accuracy(broken, pretrained[0], Reviews(SENTENCES, [1, 0, 0, 1], [2.0, -2.0, -2.0, 2.0]))


def test_each_argument_of_the_loss_predictions_and_probe_vectors_is_named(classifier, pretrained):
    # each raised an AttributeError ('NoneType' object has no attribute 'eval'/'shape'/'texts'), "'NoneType' object
    # is not callable", torch's NotImplementedError for integer logits, or named labels for (1, B, L) logits (#37)
    from anatomy.tasks.sentiment import accuracy, sentiment_loss

    tokenizer = pretrained[0]
    for call, message in [
            (lambda: classification_loss(None, torch.tensor([1, 0])), "logits must be a floating-point"),
            (lambda: classification_loss(torch.randn(1, 2, 2), torch.tensor([1, 0])),
             r"logits must be a floating-point \(B, L\) tensor, got a torch.float32 tensor of shape \(1, 2, 2\)"),
            (lambda: classification_loss(torch.ones(2, 2, dtype=torch.long), torch.tensor([1, 0])), "logits must be"),
            (lambda: classification_loss(torch.randn(2, 2), None), "labels must be Tensor, got NoneType"),
            (lambda: sentiment_loss(None, None), "batch must be SentimentBatch, got NoneType"),
            (lambda: predict_probabilities(None, tokenizer, SENTENCES), "model must be Module, got NoneType"),
            (lambda: predict_probabilities(classifier, None, SENTENCES), "tokenizer must be a tokenizer called on"),
            (lambda: predict_probabilities(classifier, tokenizer, None), "texts must be a list of texts"),
            (lambda: predict_probabilities(classifier, tokenizer, "Dull."), "texts must be a list of texts, got one str"),
            (lambda: accuracy(classifier, tokenizer, None), "reviews must be Reviews, got NoneType"),
            (lambda: sentence_vectors(None, tokenizer, SENTENCES), "encoder must be Module, got NoneType"),
            (lambda: sentence_vectors(classifier.encoder, tokenizer, None), "texts must be a list of texts")]:
        with pytest.raises((TypeError, ValueError), match=message):
            call()


def test_a_probes_seed_fixes_its_starting_weights_and_leaves_the_global_stream_alone():
    """The seed used to draw only the batches: the starting weights came from the global stream, so a
    probe's accuracy moved with how many probes ran before it (notebook 09's paired arms)."""
    vectors, labels = torch.randn(64, 8), [0, 1] * 32
    state = torch.get_rng_state()
    first, second = (train_probe(vectors, labels, steps=5, batch_size=8, seed=3) for _ in range(2))
    assert torch.equal(torch.get_rng_state(), state), "training a probe moved the global random stream"
    assert torch.equal(first.weight, second.weight) and torch.equal(first.bias, second.bias)
    assert not torch.equal(first.weight, train_probe(vectors, labels, steps=5, batch_size=8, seed=4).weight)
