"""anatomy.tokenizers.bpe_levels: syllable- and jamo-level BPE equal Hugging Face's character BPE; compression helpers."""
import random
import unicodedata

import matplotlib.pyplot as plt
import pytest

from anatomy import stdlib_sentences
from anatomy.tokenizers.bpe import ByteLevelBPE
from anatomy.tokenizers.bpe_levels import (JAMO, UNKNOWN, CharacterBPE, bytes_per_token, plot_compression, readable,
                                           smaller)
from anatomy.tokenizers.bpe_reference import hf_merges, train_hf_character_bpe
from anatomy.corpora.korean_corpus import korean_lines


@pytest.mark.parametrize("jamo, vocab_size", [(False, 600), (False, 2000), (True, 300), (True, 2000)])
def test_character_and_jamo_bpe_equal_hugging_face(jamo, vocab_size):
    train, held_out = korean_lines(), korean_lines(held_out=True)
    ours = CharacterBPE.train(train, vocab_size, jamo=jamo)
    theirs = train_hf_character_bpe(train, vocab_size, jamo=jamo, alphabet=JAMO if jamo else ())
    assert ours.merges == hf_merges(theirs)
    assert ours.vocab_size == theirs.get_vocab_size() - 1  # HF counts [UNK]
    for text in held_out + ["난 너를 좋아해 🙂"]:
        assert ours.tokenize(text) == theirs.encode(text).tokens, text


def test_syllables_the_corpus_lacks_are_unknown_but_every_syllable_has_jamo():
    train = korean_lines()
    syllables, jamo = CharacterBPE.train(train, 1000), CharacterBPE.train(train, 1000, jamo=True)
    assert syllables.tokenize("좋아해").count(UNKNOWN) == 1
    rng = random.Random(11172)
    text = "".join(chr(rng.randrange(0xAC00, 0xD7A4)) for _ in range(2000))
    assert UNKNOWN not in jamo.tokenize(text)
    assert "".join(jamo.tokenize(text)) == unicodedata.normalize("NFD", text)
    assert jamo.tokenize("🙂") == [UNKNOWN]


def test_vocabulary_smaller_than_the_alphabet_is_refused():
    with pytest.raises(ValueError, match=r"vocab_size must be an integer >= \d+ .*got 10"):
        CharacterBPE.train(korean_lines(), 10)


def test_a_smaller_vocabulary_is_a_prefix_of_a_larger_one():
    texts = stdlib_sentences(400)
    large = ByteLevelBPE.train(texts, 1500, ["<|endoftext|>"])
    for size in (257, 300, 900):
        assert smaller(large, size).merges == ByteLevelBPE.train(texts, size, ["<|endoftext|>"]).merges
    with pytest.raises(ValueError, match="vocab_size must be an integer >= 257"):
        smaller(large, 256)


def test_bytes_per_token_and_readable_tokens():
    bytes_only = ByteLevelBPE.train(["x"], 256)
    assert bytes_per_token(bytes_only, ["좋아 🙂", "abc"]) == 1.0
    tokenizer = ByteLevelBPE.train(["좋아 좋아 좋아"], 300)  # runs out of pairs at 262
    assert tokenizer.vocab_size == 262 and readable(tokenizer, " 좋아") == [" 좋아"]
    assert bytes_per_token(tokenizer, [" 좋아", "좋아"]) == 13 / 2
    assert readable(bytes_only, "좋") == ["\\xec", "\\xa2", "\\x8b"]


def test_plot_compression_draws_one_line_per_curve():
    figure = plot_compression({"English": ([256, 1000], [1.0, 2.2]), "Korean": ([256, 1000], [1.0, 2.9])})
    assert len(figure.axes[0].lines) == 2 and figure.axes[0].get_xscale() == "log"
    plt.close(figure)


def test_a_string_where_texts_go_is_refused():
    with pytest.raises(TypeError, match=r"texts must be a list of texts, got one str .*pass \[text\]"):
        CharacterBPE.train("좋아해 싫어해 좋아해", 50)
    with pytest.raises(TypeError, match=r"texts must be a list of texts, got one str"):
        bytes_per_token(ByteLevelBPE.train(["x"], 256), "a text")
    with pytest.raises(ValueError, match=r"texts is empty"):
        bytes_per_token(ByteLevelBPE.train(["x"], 256), [])
    with pytest.raises(ValueError, match=r"texts must hold at least one character"):
        bytes_per_token(ByteLevelBPE.train(["x"], 256), [""])


def test_a_small_vocabulary_names_the_corpus_alphabet_not_bytes():
    with pytest.raises(ValueError, match=r">= 4 \(the 4 characters of the corpus' alphabet \+ 0 special token\(s\)\), "
                                         r"got 3"):
        CharacterBPE.train(["좋아 해"], 3)
    with pytest.raises(ValueError, match=r"\(the 67 jamo of the corpus' alphabet"):
        CharacterBPE.train(["좋아"], 10, jamo=True)
