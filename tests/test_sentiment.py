from itertools import islice

import pytest
import torch
import torch.nn.functional as F

from anatomy import TransformerForSequenceClassification
from anatomy.linear_probe import cls_vectors, train_probe
from anatomy.sentiment import Analyser, classification_loss, predict_probabilities
from anatomy.sentiment_batches import bucketed_batches, pad_batch, tokenize


@pytest.fixture(scope="module")
def classifier():
    torch.manual_seed(0)
    return TransformerForSequenceClassification.from_pretrained(num_labels=2)


SENTENCES = ["A gorgeous, moving film.", "Dull.", "The plot is a mess and the actors look bored the whole time.",
             "I laughed, I cried, I bought the soundtrack."]


def test_pad_batch_pads_with_zeros_and_masks_the_padding():
    batch = pad_batch([[101, 7, 102], [101, 102]], [1, 0])
    assert batch.input_ids.tolist() == [[101, 7, 102], [101, 102, 0]]
    assert batch.attention_mask.tolist() == [[1, 1, 1], [1, 1, 0]]
    assert batch.labels.dtype == torch.long and batch.labels.tolist() == [1, 0]


def test_an_empty_batch_is_refused(classifier, pretrained):
    with pytest.raises(ValueError, match="empty batch: expected at least one sentence, got 0"):
        pad_batch([], [])
    with pytest.raises(ValueError, match="empty batch"):
        predict_probabilities(classifier, pretrained[0], [])


def test_one_string_instead_of_a_list(pretrained):
    with pytest.raises(TypeError, match="got one string"):
        tokenize(pretrained[0], "Dull.", 64)


def test_buckets_cover_each_sentence_once_per_epoch_with_little_padding():
    lengths = [3 + (i * 7919) % 60 for i in range(640)]
    token_ids = [[101] + [5] * (n - 2) + [102] for n in lengths]
    batches = list(islice(bucketed_batches(token_ids, list(range(640)), batch_size=32, seed=1), 20))
    assert sorted(label for b in batches for label in b.labels.tolist()) == list(range(640))
    padding = sum((b.attention_mask == 0).sum().item() for b in batches) / sum(b.input_ids.numel() for b in batches)
    assert padding < 0.05, f"{padding:.0%} of the tokens are padding"
    again = list(islice(bucketed_batches(token_ids, list(range(640)), batch_size=32, seed=1), 20))
    assert all(torch.equal(a.input_ids, b.input_ids) for a, b in zip(batches, again))


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


def test_cls_vectors_are_the_encoders_first_position(classifier, pretrained):
    tokenizer, model = pretrained
    vectors = cls_vectors(classifier.encoder, tokenizer, SENTENCES)
    batch = tokenizer(SENTENCES, padding=True, return_tensors="pt")
    with torch.no_grad():
        expected = model(**batch).last_hidden_state[:, 0]
    torch.testing.assert_close(vectors, expected, atol=1e-4, rtol=1e-4)


def test_a_probe_separates_separable_vectors():
    generator = torch.Generator().manual_seed(0)
    vectors = torch.randn(400, 8, generator=generator)
    labels = (vectors[:, 3] > 0).long().tolist()
    probe = train_probe(vectors, labels)
    accuracy = (probe(vectors).argmax(-1) == torch.tensor(labels)).float().mean().item()
    assert accuracy > 0.98
