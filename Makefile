# polybook's two commands (see README.md):
#   make site   build the bundled book
#   make test   run the test suite
# Both set up what they need first, idempotently: the Debian packages (Chromium, MathJax,
# TeX Live, fonts: scripts/setup-html.sh, scripts/setup-pdf.sh; apt-get as root), a
# virtualenv with pinned packages, the kernel environment (requirements/kernel.txt: mxnet,
# torch, d2l...) and the Jupyter kernel(s) conf.py names.

# The virtualenv's interpreter: Debian's python3.11 where the machine has it (its interpreter is
# linked statically; the pyenv build first on PATH here loads libpython3.11.so and was configured
# without --enable-optimizations), else python3. On this 2-core machine Debian's ran bookmix's cold
# `polybook check` in 0.85x the time (2.71 s against 3.17 s, 6 alternating runs each), the same findings.
DEBIAN_PYTHON := /usr/bin/python3.11
PYTHON ?= $(or $(wildcard $(DEBIAN_PYTHON)),python3)
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.polybook-installed
KERNEL_STAMP := $(VENV)/.polybook-kernels
SYSTEM_STAMP := $(VENV)/.polybook-system

.PHONY: site test setup bench-setup lint format clean

# --no-cache-dir: torch's CUDA build and its nvidia packages are ~3 GB of wheels; pip's cache would
# keep a second copy beside the venv's, which a CI machine with little free disk cannot hold
# (a CI run failed with "No space left on device" while installing).
$(STAMP): pyproject.toml requirements/constraints.txt requirements/kernel.txt
	test -x $(BIN)/python || { $(if $(filter $(DEBIAN_PYTHON),$(PYTHON)),scripts/apt-ensure.sh python3.11-venv &&) $(PYTHON) -m venv $(VENV); }
	$(BIN)/pip install --disable-pip-version-check --no-cache-dir -q -c requirements/constraints.txt -e '.[test]' -r requirements/kernel.txt
	touch $@

$(KERNEL_STAMP): $(STAMP) conf.py scripts/setup-kernel.sh
	scripts/setup-kernel.sh $(VENV)
	touch $@

# System packages are checked with dpkg on every fresh venv; the scripts are no-ops when present.
$(SYSTEM_STAMP): scripts/setup-html.sh scripts/setup-pdf.sh scripts/apt-ensure.sh
	mkdir -p $(VENV)
	scripts/setup-html.sh
	scripts/setup-pdf.sh
	touch $@

setup: $(SYSTEM_STAMP) $(STAMP) $(KERNEL_STAMP)

# What the benchmarks compare polybook with (bench/autobuild_reload.py: sphinx-autobuild).
bench-setup: setup
	$(BIN)/pip install --disable-pip-version-check --no-cache-dir -q -c requirements/constraints.txt -e '.[test,bench]'

# The complete site: parse and check-free model dump, run every framework's code (cached),
# the PDFs and the notebooks per language and framework, then the five-language HTML site
# linking them.
site: setup
	$(BIN)/polybook build --strict
	$(BIN)/polybook build eval
	$(BIN)/polybook build pdf
	$(BIN)/polybook build notebooks
	$(BIN)/polybook build html --strict

test: setup lint
	$(BIN)/pytest

lint: setup
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

format: setup
	$(BIN)/ruff format src tests bench
	$(BIN)/ruff check --fix src tests bench

clean:
	rm -rf build
