"""Notebook 11's language-modelling task: the bigram baseline against counting by hand, the split, the windows."""
import math
from collections import Counter

import pytest
import torch

from anatomy.tasks.docstring_lm import CharCorpus, bigram_log_probs, bigram_loss, windows


def small_corpus():
    characters = "\nabc"
    encode = lambda text: torch.tensor([characters.index(c) for c in text])  # noqa: E731
    return CharCorpus(characters, encode("abcab\naab\nbca\n"), encode("abca\ncab\n"))


def test_bigram_loss_is_the_add_one_counted_cross_entropy():
    corpus = small_corpus()
    train = corpus.decode(corpus.train_ids)
    pairs, firsts = Counter(zip(train, train[1:])), Counter(train[:-1])
    held_out = corpus.decode(corpus.validation_ids)
    expected = -sum(math.log((pairs[a, b] + 1) / (firsts[a] + 4)) for a, b in zip(held_out, held_out[1:]))
    assert bigram_loss(corpus) == pytest.approx(expected / (len(held_out) - 1), rel=1e-6)


def test_bigram_log_probs_are_the_counted_rows_that_notebook_11_samples_from():
    corpus = small_corpus()
    train = corpus.decode(corpus.train_ids)
    pairs, firsts = Counter(zip(train, train[1:])), Counter(train[:-1])
    log_probs = bigram_log_probs(corpus, smoothing=0.5)
    expected = torch.tensor([[math.log((pairs[a, b] + 0.5) / (firsts[a] + 2.0)) for b in corpus.characters]
                             for a in corpus.characters])
    torch.testing.assert_close(log_probs, expected)
    torch.testing.assert_close(log_probs.exp().sum(dim=1), torch.ones(4))


@pytest.mark.parametrize("smoothing", [0, -1.0, float("nan")])
def test_bigram_smoothing_must_be_positive(smoothing):
    with pytest.raises(ValueError, match=r"smoothing must be a finite number > 0, got .*add-one"):
        bigram_log_probs(small_corpus(), smoothing=smoothing)


def test_windows_are_slices_of_the_text():
    ids = torch.arange(100)
    batch = next(windows(ids, batch_size=8, length=10, generator=torch.Generator().manual_seed(0)))
    assert batch.shape == (8, 11)
    assert torch.equal(batch[:, 1:] - batch[:, :-1], torch.ones(8, 10, dtype=torch.long))


def test_unknown_characters_raise():
    with pytest.raises(ValueError, match=r"characters \['z'\] are not in the vocabulary"):
        small_corpus().encode("abz")


def test_settings_out_of_range_are_refused():
    from anatomy.tasks.docstring_lm import docstring_corpus

    for held_out in (1.5, 0.0, 1.0, float("nan")):
        with pytest.raises(ValueError, match=rf"held_out must be a finite number > 0 and < 1, got {held_out}"):
            docstring_corpus(100, held_out=held_out)
    with pytest.raises(ValueError, match=r"held_out=0.6 of 2 sentences leaves 0 for training and 2 for validation"):
        docstring_corpus(2, held_out=0.6)
    with pytest.raises(ValueError, match=r"held_out=1e-17 of 10 sentences leaves 10 for training and 0 for validation"):
        docstring_corpus(10, held_out=1e-17)  # 1 - 1e-17 is 1.0 in floating point


def test_a_bad_held_out_is_refused_before_the_standard_library_is_read(monkeypatch):
    from anatomy.tasks import docstring_lm

    def unread(count):
        raise AssertionError("the standard library was read before held_out was checked")
    monkeypatch.setattr(docstring_lm, "stdlib_sentences", unread)
    with pytest.raises(ValueError, match=r"held_out must be a finite number > 0 and < 1, got 2"):
        docstring_lm.docstring_corpus(100, held_out=2)


def test_one_sentence_is_counted_in_the_singular():
    from anatomy.tasks.docstring_lm import sentence_corpus

    with pytest.raises(ValueError, match=r"held_out=0.5 of 1 sentence leaves 0 for training and 1 for validation"):
        sentence_corpus(["alone"], held_out=0.5)


def test_a_corpus_of_given_sentences_by_hand():
    """tools/docstring_loss.py trains on another Python's sentences: the vocabulary is "\n" and their characters
    sorted; the last quarter of 4 sentences is held out; each sentence ends with "\n". Worked out by hand."""
    from anatomy.tasks.docstring_lm import sentence_corpus

    corpus = sentence_corpus(["ba", "ab", "c a", "cc"], held_out=0.25)
    assert corpus.characters == "\n abc"
    assert corpus.train_ids.tolist() == [3, 2, 0, 2, 3, 0, 4, 1, 2, 0] and corpus.validation_ids.tolist() == [4, 4, 0]


def test_the_docstring_corpus_is_the_corpus_of_this_pythons_sentences():
    from anatomy.corpora.stdlib_docstrings import stdlib_sentences
    from anatomy.tasks.docstring_lm import docstring_corpus, sentence_corpus

    ours, given = docstring_corpus(300, held_out=0.2), sentence_corpus(stdlib_sentences(300), held_out=0.2)
    assert ours.characters == given.characters
    assert torch.equal(ours.train_ids, given.train_ids) and torch.equal(ours.validation_ids, given.validation_ids)


@pytest.mark.parametrize("sentences, error, words", [
    ("one sentence", TypeError, r"sentences must be a list of texts, got one str"),
    (["fine", 3], TypeError, r"sentences must hold strings only, got \(position, type\) \[\(1, 'int'\)\]"),
    ([], ValueError, r"sentences is empty"),
    (["a", "two\nlines", "c"], ValueError, r'sentences must not hold "\\n", the separator between sentences; got it at positions \[1\]'),
])
def test_given_sentences_that_cannot_make_a_corpus_are_refused(sentences, error, words):
    from anatomy.tasks.docstring_lm import sentence_corpus

    with pytest.raises(error, match=words):
        sentence_corpus(sentences)


def test_windows_on_a_text_too_short_raise_at_once():
    generator = torch.Generator().manual_seed(0)
    with pytest.raises(ValueError, match=r"ids must be a 1-D text of at least length \+ 2 = 12 tokens"):
        windows(torch.arange(11), batch_size=8, length=10, generator=generator)
    with pytest.raises(ValueError, match="batch_size must be an integer >= 1, got 0"):
        windows(torch.arange(100), batch_size=0, length=10, generator=generator)


def test_validation_text_shorter_than_one_window_is_refused():
    from anatomy.tasks.docstring_lm import validation_loss
    from anatomy.models.gpt import GPT, GPTConfig

    model = GPT(GPTConfig(vocab_size=4, hidden_size=8, num_attention_heads=2, num_hidden_layers=1,
                          intermediate_size=16, max_position_embeddings=16))
    with pytest.raises(ValueError, match=r"ids must be a 1-D text of at least one context window \+ 1 = 17 tokens, got "
                                         r"shape \(10,\)"):
        validation_loss(model, torch.zeros(10, dtype=torch.long))  # used to return nan


def test_corpus_and_model_arguments_are_named_when_wrong():
    # None raised AttributeErrors ('NoneType' object has no attribute 'characters' / 'config')
    from anatomy.tasks.docstring_lm import docstring_config, validation_loss
    for call, argument in [(lambda: bigram_log_probs(None), "corpus"), (lambda: bigram_loss(None), "corpus"),
                           (lambda: docstring_config(None), "corpus"), (lambda: validation_loss(None, torch.zeros(70).long()), "model")]:
        with pytest.raises(TypeError, match=argument):
            call()


def test_next_character_loss_names_a_wrong_model_or_window():
    # a None model raised "'NoneType' object is not callable"; a (1, B, T + 1) or float window was refused as
    # "input_ids must be ..." (the model's argument, not this one's) (found by the sweep, #37)
    from anatomy.models.gpt import GPT, GPTConfig
    from anatomy.tasks.docstring_lm import next_character_loss

    model = GPT(GPTConfig(vocab_size=4, hidden_size=8, num_attention_heads=2, num_hidden_layers=1,
                          intermediate_size=16, max_position_embeddings=8))
    window = torch.tensor([[1, 2, 3, 0], [2, 3, 0, 1]])
    for call, message in [(lambda: next_character_loss(None, window), "model must be Module, got NoneType"),
                          (lambda: next_character_loss(model, window[None]), r"window must be an integer \(B, T \+ 1\)"),
                          (lambda: next_character_loss(model, window.float()), r"window must be an integer \(B, T \+ 1\)"),
                          (lambda: next_character_loss(model, window[:, :1]), "window must hold at least 2 tokens per row")]:
        with pytest.raises((TypeError, ValueError), match=message):
            call()
    assert next_character_loss(model, window).isfinite()
