# knowsum — two commands set everything up on a fresh machine:
#   make demo   creates .venv, installs, runs the main job on the embedded default
#   make test   creates .venv, installs everything the tests need (llama-cpp build, test model,
#               knowledge bases), runs ruff, mypy and the whole test suite
# Both are idempotent and fast once set up (stamps in .venv; data kept in the knowsum home).

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
KNOWSUM := $(VENV)/bin/knowsum
# llama-cpp-python builds from source (~10 min on 2 cores); pip caches the wheel afterwards.
export CMAKE_ARGS ?= -DLLAVA_BUILD=OFF
export PIP_DISABLE_PIP_VERSION_CHECK := 1
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | sha256sum | cut -c1-12)
TEST_MODEL := smollm2-135m-instruct
TEST_KBS := all

.PHONY: install data test lint typecheck demo bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(PY)
	$(PIP) install -q -e '.[local,dev]'
	rm -f $(VENV)/.installed-* && touch $@

install: $(STAMP)

data: install
	$(KNOWSUM) models install $(TEST_MODEL)
	$(KNOWSUM) kb install $(TEST_KBS)

lint: install
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/ruff format --check src tests bench

typecheck: install
	$(VENV)/bin/mypy

test: data lint typecheck
	$(VENV)/bin/pytest -q

demo: install
	$(KNOWSUM) estimate examples/fisher_butterflies.tsv --t 1 --k auto

bench: install
	$(PY) bench/bench_estimate.py

clean:
	rm -rf $(VENV) build *.egg-info
