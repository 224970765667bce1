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

.PHONY: browser install data test lint typecheck demo bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(PY)
	@# torch first: the pinned CPU wheel on these machines; a bare `torch` would pull GBs of CUDA packages
	$(PIP) install -q torch==2.13.0
	$(PIP) install -q -e '.[local,embed,dev]'
	rm -f $(VENV)/.installed-* && touch $@

install: $(STAMP)

data: install browser
	$(KNOWSUM) models install $(TEST_MODEL)
	$(KNOWSUM) kb install $(TEST_KBS)

# headless Chromium for the report tests (Debian package; CI runs as root)
browser:
	@command -v chromium >/dev/null || { ls /var/lib/apt/lists/*_Packages >/dev/null 2>&1 || apt-get update -qq; \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

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
