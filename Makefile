# polybook's two commands (see README.md):
#   make site   build the bundled book
#   make test   run the test suite
# Both set up what they need first, idempotently: a virtualenv with pinned packages.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.polybook-installed

.PHONY: site test setup lint format clean

$(STAMP): pyproject.toml requirements/constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --disable-pip-version-check -q -c requirements/constraints.txt -e '.[test]'
	touch $@

setup: $(STAMP)

site: setup
	$(BIN)/polybook build

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
