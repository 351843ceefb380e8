"""anatomy.tasks.sentiment_batches: padding, tokenising, and batches bucketed by length; a stream that could
never fill a batch is refused when it is asked for."""
from itertools import islice

import pytest
import torch

from anatomy.tasks.sentiment_batches import batches_by_length, bucketed_batches, pad_batch, tokenize


def test_pad_batch_pads_with_zeros_and_masks_the_padding():
    batch = pad_batch([[101, 7, 102], [101, 102]], [1, 0])
    assert batch.input_ids.tolist() == [[101, 7, 102], [101, 102, 0]]
    assert batch.attention_mask.tolist() == [[1, 1, 1], [1, 1, 0]]
    assert batch.labels.dtype == torch.long and batch.labels.tolist() == [1, 0]


def test_an_empty_batch_is_refused():
    with pytest.raises(ValueError, match="empty batch: expected at least one sentence, got 0"):
        pad_batch([], [])


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


def test_a_training_stream_that_could_never_fill_a_batch_raises_at_once():
    with pytest.raises(ValueError, match=r"the training set \(token_ids\) is empty \(0 examples\)"):
        bucketed_batches([], [], batch_size=32)  # used to loop forever at the first next()
    with pytest.raises(ValueError, match=r"batch_size \(32\) is larger than the 5 examples of the training set"):
        bucketed_batches([[101, 102]] * 5, [0] * 5, batch_size=32)
    with pytest.raises(ValueError, match="batch_size must be an integer >= 1, got 0"):
        bucketed_batches([[101, 102]] * 5, [0] * 5, batch_size=0)
    with pytest.raises(ValueError, match=r"expected one label per sentence \(5\), got 4"):
        bucketed_batches([[101, 102]] * 5, [0] * 4, batch_size=2)


def test_inference_batches_and_tokenising_settings(pretrained):
    tokenizer = pretrained[0]
    with pytest.raises(ValueError, match="batch_size must be an integer >= 1, got 0"):
        next(batches_by_length(tokenizer, ["Dull."], 64, batch_size=0))
    with pytest.raises(ValueError, match=r"max_length must be an integer >= 3, got 0 \(room for \[CLS\], one token"):
        tokenize(tokenizer, ["Dull."], max_length=0)
    with pytest.raises(ValueError, match=r"expected one label per text \(2\), got 1"):
        next(batches_by_length(tokenizer, ["Dull.", "Fine."], 64, batch_size=8, labels=[1]))


def test_each_argument_is_named_when_it_is_wrong(pretrained):
    # each raised "object of type 'NoneType' has no len()", "'NoneType' object is not callable", torch's "full():
    # argument 'fill_value' must be Number" or RuntimeError for a NaN pad_id, or a message naming no argument (#37)
    tokenizer = pretrained[0]
    for call, message in [
            (lambda: pad_batch(None, [1]), "token_ids must be a list of token-id lists, got NoneType"),
            (lambda: pad_batch([[1, 2]], None), "labels must be a list of class ids, got NoneType"),
            (lambda: pad_batch([[1, 2]], []), r"labels and token_ids differ in length: expected one label per sentence \(1\)"),
            (lambda: pad_batch([[1, 2]], [1], pad_id=float("nan")), "pad_id must be an integer >= 0, got nan"),
            (lambda: bucketed_batches([[1, 2]] * 4, [1] * 4, 2, pad_id=None), "pad_id must be an integer >= 0, got None"),
            (lambda: bucketed_batches(None, [1], 2), "token_ids must be a list of token-id lists, got NoneType"),
            (lambda: tokenize(None, ["Dull."], 64), "tokenizer must be a tokenizer called on a list of texts"),
            (lambda: tokenize(tokenizer, None, 64), "texts must be a list of texts"),
            (lambda: tokenize(tokenizer, "Dull.", 64), "texts must be a list of sentences, got one string"),
            (lambda: next(batches_by_length(tokenizer, [], 64, 8, labels=[1, 0])), "labels and texts differ in length")]:
        with pytest.raises((TypeError, ValueError), match=message):
            call()
