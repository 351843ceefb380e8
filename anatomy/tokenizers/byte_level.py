"""GPT-2's byte level: the pre-tokenisation split and the table from bytes to printable characters.

Taught in: 15_byte_level_bpe. Used by anatomy.tokenizers.bpe (a byte-level BPE trained from scratch).
No shapes here: text in, lists of strings out.

Radford et al. (2019) run BPE on UTF-8 *bytes*, so every string can be written with 256 base tokens
and nothing is ever unknown. Two pieces come before the merges:
1. the split: a regular expression cuts text into "words" (contractions, letters, digits, other
   symbols, each with at most one leading space; runs of whitespace), and merges never cross a
   word boundary, so "dog." and "dog!" share the token "dog";
2. the byte table: each byte 0..255 is shown as one printable Unicode character (a space becomes
   "Ġ", a newline "Ċ", the printable ASCII bytes stay themselves), so a token is still a string.
"""
from __future__ import annotations

import random

import regex

# The split of GPT-2's encoder.py, as Hugging Face's ByteLevel pre-tokenizer (use_regex=True) applies it.
GPT2_SPLIT_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
GPT2_SPLIT = regex.compile(GPT2_SPLIT_PATTERN)


def bytes_to_unicode() -> dict[int, str]:
    """Byte -> printable character, GPT-2's table: the 188 bytes that print (and are not a space)
    map to themselves, the other 68 to the characters 256, 257, ... in byte order."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    table, shifted = {}, 0
    for byte in range(256):
        if byte in printable:
            table[byte] = chr(byte)
        else:
            table[byte] = chr(256 + shifted)
            shifted += 1
    return table


BYTE_TO_CHAR = bytes_to_unicode()
CHAR_TO_BYTE = {char: byte for byte, char in BYTE_TO_CHAR.items()}
ALPHABET = sorted(BYTE_TO_CHAR.values())  # the 256 base tokens, in code-point order (as HF's trainer numbers them)


def split_words(text: str) -> list[str]:
    """GPT-2's split of `text` into words, before any byte mapping: "Hi  there!" -> ["Hi", " ", " there", "!"]."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    return GPT2_SPLIT.findall(text)


def to_byte_chars(word: str) -> str:
    """A word's UTF-8 bytes, each written as its printable character: " 좋" -> "Ġì¢ĭ"."""
    if not isinstance(word, str):
        raise TypeError(f"word must be a str, got {type(word).__name__}")
    return "".join(BYTE_TO_CHAR[byte] for byte in word.encode("utf-8"))


def from_byte_chars(chars: str) -> bytes:
    """The bytes a string of byte characters stands for (the inverse of to_byte_chars, before decoding)."""
    if not isinstance(chars, str):
        raise TypeError(f"chars must be a str of byte characters, got {type(chars).__name__}")
    try:
        return bytes(CHAR_TO_BYTE[char] for char in chars)
    except KeyError as error:
        raise ValueError(f"{chars!r} is not written in the byte alphabet: {error.args[0]!r} stands for no byte "
                         "(expected characters of anatomy.tokenizers.byte_level.ALPHABET, as to_byte_chars writes "
                         "them)") from None


def pre_tokenize(text: str) -> list[str]:
    """Split, then write each word in byte characters: what BPE sees (HF's ByteLevel(add_prefix_space=False))."""
    return [to_byte_chars(word) for word in split_words(text)]


def random_text(rng: random.Random, length: int) -> str:
    """`length` random characters for round-trip checks: ASCII and its controls, Latin, combining marks,
    Hangul jamo and syllables, CJK, emoji, and any other code point but the surrogates (not text)."""
    if not isinstance(rng, random.Random) or isinstance(length, bool) or not isinstance(length, int) or length < 0:
        raise TypeError(f"rng must be a random.Random and length an integer >= 0, got {type(rng).__name__} and {length!r}")
    ranges = [(0, 0x80), (0x80, 0x250), (0x300, 0x370), (0x1100, 0x1200), (0xAC00, 0xD7A4), (0x4E00, 0x9FFF),
              (0x1F300, 0x1FAFF), (0, 0xD800), (0xE000, 0x110000)]
    chars = (chr(rng.randrange(*rng.choice(ranges))) for _ in range(length))
    return "".join(chars)
