# Quick start: `make run` (the game server on http://127.0.0.1:8000) and `make test` (the whole suite).
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test test-fast lint typecheck bench clean

$(VENV)/bin/python:
	python3 -m venv $(VENV)

RUN_STAMP := $(VENV)/.installed-run

# make run installs what playing needs; make test (and lint, bench) the test and research tools too.
$(RUN_STAMP): pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e .
	touch $(RUN_STAMP)

$(STAMP): pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev,research,ray]'
	touch $(STAMP)

run: $(RUN_STAMP)
	$(VENV)/bin/luz serve

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests
	$(VENV)/bin/ruff format --check src tests
	$(VENV)/bin/lint-imports

typecheck: $(STAMP)
	$(VENV)/bin/mypy

# The abuse tests time a victim's service while a real server is attacked: they run alone, after the rest.
test: lint typecheck
	$(PY) -m pytest -n auto tests src/luz --ignore=tests/abuse
	$(PY) -m pytest tests/abuse

# The inner loop: no browser, no server processes, no abuse tests (a few minutes on 2 cores).
test-fast: $(STAMP)
	$(PY) -m pytest -n auto tests src/luz --ignore=tests/abuse --ignore=tests/web --ignore=tests/scaleout -m "not slow"

bench: $(STAMP)
	$(VENV)/bin/luz bench engine

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
