"""anatomy.tasks.copy_task: the data of notebook 00 and its three models."""
import pytest
import torch

from anatomy.tasks.copy_task import (LETTERS, MAX_LENGTH, MODEL_NAMES, build_model, copy_pairs, copy_vocabulary,
                                     training_batches)


def test_pairs_are_copies_of_the_asked_lengths_and_reproducible():
    pairs = copy_pairs(200, seed=3, lengths=(5, 9))
    assert all(source == target and 5 <= len(source) <= 9 and set(source) <= set(LETTERS) for source, target in pairs)
    assert {len(source) for source, _ in pairs} == set(range(5, 10))
    assert pairs == copy_pairs(200, seed=3, lengths=(5, 9)) != copy_pairs(200, seed=4, lengths=(5, 9))


def test_each_training_batch_has_one_length_and_lengths_cover_the_range():
    vocab = copy_vocabulary()
    batches = training_batches(vocab, batch_size=4, seed=0)
    lengths = set()
    for _ in range(400):
        batch = next(batches)
        assert batch.src_mask.all()  # one length per batch: no padding
        assert torch.equal(batch.labels[:, :-1], batch.src_ids)
        lengths.add(batch.src_ids.size(1))
    assert lengths == set(range(1, MAX_LENGTH + 1))


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_every_model_reads_the_longest_string(name):
    vocab = copy_vocabulary()
    model = build_model(name, vocab).eval()
    src = torch.randint(3, len(vocab), (2, MAX_LENGTH))
    tgt = torch.randint(3, len(vocab), (2, MAX_LENGTH + 1))
    with torch.no_grad():
        assert model(src, tgt).logits.shape == (2, MAX_LENGTH + 1, len(vocab))


def test_models_are_the_papers_and_their_sizes_are_as_documented():
    """Fixed context: one-way encoder (Cho et al.'s RNNencdec); attention: bidirectional (Bahdanau's RNNsearch)."""
    vocab = copy_vocabulary()
    models = {name: build_model(name, vocab) for name in MODEL_NAMES}
    assert not models["GRU, fixed context"].encoder_rnn.bidirectional
    assert models["GRU + attention"].encoder_rnn.bidirectional
    sizes = {name: sum(p.numel() for p in model.parameters()) for name, model in models.items()}
    assert sizes == {"GRU, fixed context": 54_589, "GRU + attention": 97_853, "Transformer": 169_280}


def test_bad_model_name_and_lengths():
    with pytest.raises(ValueError, match=r"model name must be one of .*got 'LSTM'"):
        build_model("LSTM", copy_vocabulary())
    with pytest.raises(ValueError, match=r"1 <= low <= high, got \(5, 2\)"):
        copy_pairs(3, seed=0, lengths=(5, 2))


def test_settings_out_of_range_are_refused_at_once():
    vocab = copy_vocabulary()
    with pytest.raises(ValueError, match="batch_size must be an integer >= 1, got 0"):
        training_batches(vocab, batch_size=0)  # refused when asked for, not at the first next()
    with pytest.raises(ValueError, match="count must be an integer >= 0, got -1"):
        copy_pairs(-1, seed=0)
    with pytest.raises(ValueError, match=r"lengths must be \(low, high\) integers"):
        copy_pairs(3, seed=0, lengths=(1.5, 4))
    from anatomy.tasks.copy_task import accuracy_by_length

    with pytest.raises(ValueError, match=rf"each length must be an integer in \[1, {MAX_LENGTH}\], got 61"):
        accuracy_by_length(build_model("GRU + attention", vocab), vocab, [5, 61])


def test_builders_and_batches_name_a_vocab_or_seed_that_is_wrong():
    # a None vocab raised AttributeError (pad_id, encode) or "object of type 'NoneType' has no len()", a None
    # seed "unsupported operand type(s) for *" at the first batch (found by the sweep, #37)
    from anatomy.tasks.copy_task import build_rnn

    for call in (lambda: build_model("GRU + attention", None), lambda: build_rnn(None),
                 lambda: training_batches(None, 4), lambda: build_model("Transformer", list(LETTERS))):
        with pytest.raises(TypeError, match="vocab must be CharVocabulary, got"):
            call()
    with pytest.raises(ValueError, match="seed must be an integer >= 0, got None"):
        training_batches(copy_vocabulary(), 4, seed=None)
