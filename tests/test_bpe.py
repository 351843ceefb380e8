"""anatomy.tokenizers.bpe (byte-level BPE from scratch) against Hugging Face `tokenizers`, trained the same way."""
import random
import re
import unicodedata

import pytest
from tokenizers import pre_tokenizers

from anatomy import stdlib_sentences
from anatomy.tokenizers.bpe import ByteLevelBPE, apply_merges
from anatomy.tokenizers.bpe_encoding import merge_by_rank
from anatomy.tokenizers.bpe_reference import hf_merges, hf_vocab, train_hf_byte_level_bpe
from anatomy.tokenizers.byte_level import ALPHABET, pre_tokenize, random_text
from anatomy.corpora.korean_corpus import korean_lines
from anatomy.corpora.sentiment_data import load_reviews

SPECIALS = ["<|endoftext|>", "[MASK]"]


@pytest.fixture(scope="module")
def corpora():
    english = stdlib_sentences(2000)
    return {"english": (english[:1500], english[1500:] + load_reviews("test").texts[:500]),
            "korean": (korean_lines(), korean_lines(held_out=True)),
            "mixed": (english[:700] + korean_lines()[:700], english[1500:1700] + korean_lines(held_out=True)[:200])}


@pytest.mark.parametrize("corpus, vocab_size, specials", [
    ("english", 257, ()), ("english", 300, SPECIALS), ("english", 1000, ()), ("english", 4000, SPECIALS),
    ("korean", 500, ()), ("korean", 2000, SPECIALS), ("mixed", 1500, SPECIALS),
])
def test_merges_vocabulary_and_encodings_equal_hugging_face(corpora, corpus, vocab_size, specials):
    train, held_out = corpora[corpus]
    ours = ByteLevelBPE.train(train, vocab_size, specials)
    theirs = train_hf_byte_level_bpe(train, vocab_size, specials)
    assert ours.merges == hf_merges(theirs)
    assert [ours.id_to_token(i) for i in range(ours.vocab_size)] == hf_vocab(theirs)
    assert ours.vocab_size == theirs.get_vocab_size() <= vocab_size
    for text in held_out:
        assert ours.encode(text) == theirs.encode(text).ids, text
        assert ours.decode(ours.encode(text)) == text == theirs.decode(theirs.encode(text).ids)


def test_ties_go_to_the_pair_with_the_smallest_ids():
    """Every pair occurs once. After (a, b) -> "ab" (id 256), both (ab, c) and (b, x) occur once:
    ids (256, 66) vs (65, 87) ("!" is id 0), so (b, x) comes first, though "ab" < "b" as strings."""
    texts = ["abc", "bx"]
    ours = ByteLevelBPE.train(texts, 256 + 3)
    assert [ours.token_to_id(token) for token in ["b", "c", "x", "ab"]] == [65, 66, 87, 256]
    assert ours.merges == [("a", "b"), ("b", "x"), ("ab", "c")] == hf_merges(train_hf_byte_level_bpe(texts, 259))


@pytest.mark.parametrize("seed", range(6))
def test_corpora_full_of_ties_equal_hugging_face(seed):
    """Short words over a four-letter alphabet, each drawn a few times: most pair counts tie."""
    rng = random.Random(seed)
    words = ["".join(rng.choice("abcd") for _ in range(rng.randint(1, 6))) for _ in range(40)]
    texts = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 8))) for _ in range(30)]
    for vocab_size in (260, 280, 320, 400):
        ours, theirs = ByteLevelBPE.train(texts, vocab_size), train_hf_byte_level_bpe(texts, vocab_size)
        assert ours.merges == hf_merges(theirs)
        assert all(ours.encode(text) == theirs.encode(text).ids for text in words + texts)


def test_decode_encode_round_trip_on_random_unicode():
    rng = random.Random(2016)
    tokenizer = ByteLevelBPE.train(stdlib_sentences(300) + korean_lines()[:300], 800, SPECIALS)
    for _ in range(3000):
        text = random_text(rng, rng.randrange(0, 40))
        if rng.random() < 0.2:
            text += rng.choice(SPECIALS) + random_text(rng, 5)
        assert tokenizer.decode(tokenizer.encode(text)) == text


def test_split_equals_hugging_face_byte_level_pre_tokenizer():
    """On code points Unicode had assigned by version 14 (Python 3.11's), below U+30000; on newer or
    unassigned ones the `regex` package and HF's Oniguruma may classify a character differently."""
    rng = random.Random(2019)
    reference = pre_tokenizers.ByteLevel(add_prefix_space=False)
    assert sorted(reference.alphabet()) == ALPHABET
    for _ in range(3000):
        text = "".join(c for c in random_text(rng, rng.randrange(0, 30))
                       if unicodedata.category(c) not in ("Cn", "Cs") and ord(c) < 0x30000)
        text += rng.choice(["", " ", "  ", "\n\n", " 's", "'ll", "\t x"])
        assert pre_tokenize(text) == [word for word, _ in reference.pre_tokenize_str(text)], repr(text)


def test_special_tokens_are_encoded_whole_as_hugging_face_does():
    texts = stdlib_sentences(300)
    ours, theirs = ByteLevelBPE.train(texts, 600, SPECIALS), train_hf_byte_level_bpe(texts, 600, SPECIALS)
    text = "The [MASK] sat.<|endoftext|>[MASK][MASK] x<|endoftext|"
    assert ours.encode(text) == theirs.encode(text).ids
    assert ours.encode(text)[2] == ours.token_to_id("[MASK]") == 1
    assert ours.decode(ours.encode(text)) == text


def test_save_and_load_give_the_same_tokenizer(tmp_path):
    tokenizer = ByteLevelBPE.train(korean_lines()[:200], 400, ["[PAD]"])
    tokenizer.save(tmp_path / "bpe.json")
    loaded = ByteLevelBPE.load(tmp_path / "bpe.json")
    assert loaded.merges == tokenizer.merges and loaded.special_tokens == ["[PAD]"]
    text = "좋아해 싫어해 [PAD]"
    assert loaded.encode(text) == tokenizer.encode(text)
    (tmp_path / "other.json").write_text('{"model": {}}', encoding="utf-8")
    with pytest.raises(ValueError, match="not a file ByteLevelBPE.save wrote"):
        ByteLevelBPE.load(tmp_path / "other.json")


@pytest.mark.parametrize("texts", [[], [""], ["", ""], iter([])])
def test_empty_corpus_is_refused(texts):
    with pytest.raises(ValueError, match="the corpus is empty: expected at least one text"):
        ByteLevelBPE.train(texts, 300)


def test_a_single_string_as_corpus_is_refused():
    with pytest.raises(TypeError, match=r"pass \[text\]"):
        ByteLevelBPE.train("a whole text", 300)


@pytest.mark.parametrize("vocab_size, specials, least", [(255, (), 256), (257, SPECIALS, 258), (0, (), 256),
                                                         (300.0, (), 256), (True, (), 256)])
def test_vocabulary_smaller_than_the_byte_alphabet_is_refused(vocab_size, specials, least):
    with pytest.raises(ValueError, match=rf"vocab_size must be an integer >= {least} .*got {vocab_size!r}"):
        ByteLevelBPE.train(["some text"], vocab_size, specials)


def test_smallest_vocabulary_is_the_bytes_and_the_special_tokens():
    tokenizer = ByteLevelBPE.train(["some text"], 258, SPECIALS)
    assert tokenizer.vocab_size == 258 and tokenizer.merges == []
    assert tokenizer.decode(tokenizer.encode("좋아해 🙂")) == "좋아해 🙂"


@pytest.mark.parametrize("ids", [[0, 300], [-1], [5, 2**40]])
def test_ids_outside_the_vocabulary_are_refused(ids):
    tokenizer = ByteLevelBPE.train(["some text"], 300)
    with pytest.raises(ValueError, match=r"ids must be in \[0, \d+\] \(this vocabulary has \d+ tokens\), got"):
        tokenizer.decode(ids)


@pytest.mark.parametrize("specials, error", [("[MASK]", TypeError), (["[MASK]", "[MASK]"], ValueError),
                                             ([""], ValueError)])
def test_bad_special_tokens_are_refused(specials, error):
    with pytest.raises(error, match="special_tokens must be"):
        ByteLevelBPE.train(["some text"], 300, specials)


def test_unknown_token_names_the_byte_alphabet():
    tokenizer = ByteLevelBPE.train(["some text"], 300)
    assert tokenizer.token_to_id("Ġ") == ALPHABET.index("Ġ")
    with pytest.raises(KeyError, match="byte characters"):
        tokenizer.token_to_id(" the")


@pytest.mark.parametrize("seed", range(4))
def test_the_heap_merge_gives_apply_merges_result(seed):
    """Small alphabets and merges built from each other: many ties in position, merges of merges."""
    rng = random.Random(seed)
    for _ in range(500):
        alphabet = "abc"[:rng.randint(1, 3)]
        tokens, merges = set(alphabet), []
        for _ in range(rng.randint(0, 12)):
            pair = (rng.choice(sorted(tokens)), rng.choice(sorted(tokens)))
            merges.append(pair)
            tokens.add(pair[0] + pair[1])
        ranks = {pair: rank for rank, pair in enumerate(merges)}
        word = [rng.choice(alphabet) for _ in range(rng.randint(0, 30))]
        assert merge_by_rank(word, ranks) == apply_merges(word, ranks), (word, merges)


class CountingRanks(dict):
    """A rank table that counts its look-ups: the work of one encoding, without a clock."""
    lookups = 0

    def get(self, *args):
        CountingRanks.lookups += 1
        return super().get(*args)


def test_one_long_word_is_encoded_as_hugging_face_does_with_linear_look_ups():
    """A 20,000-character word (the corpus' letters run together): HF's ids, and at most 4 rank look-ups
    per byte (one per pair at the start, three per merge); rescanning after each merge needs thousands."""
    texts = stdlib_sentences(1000)
    ours, theirs = ByteLevelBPE.train(texts, 2000), train_hf_byte_level_bpe(texts, 2000)
    word = re.sub(r"[^A-Za-z]", "", " ".join(stdlib_sentences(3000)))[:20_000]
    assert ours.encode(word) == theirs.encode(word).ids
    ours._ranks = CountingRanks(ours._ranks)
    ours._cache.clear()
    CountingRanks.lookups = 0
    assert ours.encode(word) == theirs.encode(word).ids
    assert CountingRanks.lookups <= 4 * len(word), CountingRanks.lookups


@pytest.mark.parametrize("vocab, merges, specials, error, message", [
    (None, [], (), TypeError, r"vocab must be a list of token strings, got NoneType"),
    (list(ALPHABET), None, (), TypeError, r"merges must be a list of \(left, right\) pairs, got NoneType"),
    (list(ALPHABET) + ["ab"], ["a b"], (), ValueError, r"merges must be \(left, right\) pairs of token strings, got 'a b' at "
                                                        r"position 0: Hugging Face's merges.txt writes \"a b\"; pass "
                                                        r"\[tuple\(m.split\(' ', 1\)\) for m in merges\]"),
    (list(ALPHABET), [], None, TypeError, r"special_tokens must be a list of strings \(or \(\) for none\), got None"),
])
def test_bad_vocabularies_and_merges_name_the_argument(vocab, merges, specials, error, message):
    with pytest.raises(error, match=message):
        ByteLevelBPE(vocab, merges, specials)


def test_texts_none_is_refused_by_name():
    with pytest.raises(TypeError, match=r"texts must be a list of texts \(strings\), got NoneType"):
        ByteLevelBPE.train(None, 300)
