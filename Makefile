# Quick start: `make run` (the game server on http://127.0.0.1:8000) and `make test` (the whole suite).
VENV ?= .venv
PY := $(VENV)/bin/python
# Every install takes the versions of constraints.txt (`make lock` refreshes it).
INSTALL := $(PY) -m pip install -q -c constraints.txt
STAMP := $(VENV)/.installed
RUN_STAMP := $(VENV)/.installed-run

.PHONY: run test test-fast lint typecheck bench lock dist clean

$(VENV)/bin/python:
	python3 -m venv $(VENV)

# make run installs what the server needs (the server extra); make test (and lint, bench) every extra.
# A changed pyproject.toml or constraints.txt reinstalls.
$(RUN_STAMP): pyproject.toml constraints.txt | $(VENV)/bin/python
	$(PY) -m pip install -q --upgrade pip
	$(INSTALL) -e '.[server]'
	touch $(RUN_STAMP)

$(STAMP): pyproject.toml constraints.txt | $(VENV)/bin/python
	$(PY) -m pip install -q --upgrade pip
	$(INSTALL) -e '.[all]'
	touch $(STAMP)

run: $(RUN_STAMP)
	$(VENV)/bin/luz serve

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests
	$(VENV)/bin/ruff format --check src tests
	$(VENV)/bin/lint-imports
	$(PY) tests/js_imports.py > /dev/null

typecheck: $(STAMP)
	$(VENV)/bin/mypy

# The abuse tests time a victim's service while a real server is attacked: they run alone, after the rest.
# tests/packaging builds the wheel and the sdist and installs the wheel into a fresh venv, once: its tests are one
# xdist group (--dist loadgroup), run by one worker.
test: lint typecheck
	$(PY) -m pytest -n auto --dist loadgroup tests src/luz --ignore=tests/abuse
	$(PY) -m pytest tests/abuse

# The inner loop: the engine, bots, CLI, arena, research and the unit tests of the server's parts (each tested alone,
# with fakes); no browser, no server process or whole app on a database, no abuse or install tests (the markers in
# pyproject.toml). Every test deselected here runs in `make test`.
test-fast: $(STAMP)
	$(PY) -m pytest -n auto tests src/luz --ignore=tests/abuse --ignore=tests/web --ignore=tests/scaleout \
		-m "not slow and not integration and not browser"

bench: $(STAMP)
	$(VENV)/bin/luz bench engine

# constraints.txt: every extra's dependencies pinned for Python 3.11 on Linux, by uv (installed in the venv if needed).
lock: | $(VENV)/bin/python
	test -x $(VENV)/bin/uv || $(PY) -m pip install -q uv
	$(VENV)/bin/uv pip compile pyproject.toml --all-extras --python-version 3.11 \
		--python-platform x86_64-unknown-linux-gnu --quiet -o constraints.txt

# The wheel and the sdist in dist/ (the wheel is built from the sdist, so the sdist is known to be complete).
dist: $(STAMP)
	rm -rf dist
	$(PY) -m build --outdir dist

clean:
	rm -rf $(VENV) dist .pytest_cache .mypy_cache .ruff_cache .hypothesis
