# Two commands on a fresh machine:  `make run` (the app on http://127.0.0.1:8000)  and  `make test`
# (the fast tier; `make test-slow` runs the slow one: real browser, the wheel, end-to-end job runs;
# `make test-all` both, as CI does).
PYTHON ?= python3
HOST ?= 127.0.0.1
PORT ?= 8000
VENV := .venv
BIN := $(VENV)/bin

# Every install is held to constraints.txt: the exact set of releases the tests last ran with
# (pyproject's [project] dependencies are ranges, so the package installs beside other projects;
# CI, `make` and the Dockerfile install this tested set). `make lock` regenerates it.
CONSTRAINTS := $(if $(wildcard constraints.txt),-c constraints.txt)
PIP := $(BIN)/python -m pip install -q $(CONSTRAINTS)

.PHONY: run test test-slow test-all test-without-shared bench lint docs docs-screenshots lock clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.run-deps: pyproject.toml $(wildcard constraints.txt) | $(BIN)/python
	$(PIP) -e '.[mix]'
	touch $@

$(VENV)/.test-deps: pyproject.toml $(wildcard constraints.txt) | $(BIN)/python
	$(PIP) -e '.[test,shared]'
	touch $@ $(VENV)/.run-deps

# with the optional extra too: mypy then sees every package the code imports, in CI as here
$(VENV)/.lint-deps: pyproject.toml $(wildcard constraints.txt) | $(BIN)/python
	$(PIP) -e '.[lint,mix,shared]'
	touch $@

$(VENV)/.docs-deps: pyproject.toml $(wildcard constraints.txt) | $(BIN)/python
	$(PIP) -e '.[docs]'
	touch $@

# the store migrated first (`tokvis db upgrade`: a new store is created, an older one adopted
# with every row), then served as a deployment serves it (README, "Deployment"): a request's head must arrive within
# TOKVIS_HEADER_TIMEOUT seconds (app/serving.py), an idle kept-alive connection closes after 5 s
# The store is a file in this checkout (.tokvis/, which git ignores), so two checkouts never list
# each other's corpora and uploads; TOKVIS_DB or TOKVIS_DATABASE_URL, when set, names another
# (`tokvis serve` and an installed package keep the per-user default, docs/configuration.md).
# The server's first lines say which store it opened ("store: sqlite:///...").
RUN_DB := $(or $(TOKVIS_DB),$(CURDIR)/.tokvis/store.sqlite3)
run: $(VENV)/.run-deps
	TOKVIS_DB='$(RUN_DB)' $(BIN)/python -m app.cli db upgrade
	TOKVIS_DB='$(RUN_DB)' $(BIN)/python -m uvicorn app.main:app --host $(HOST) --port $(PORT) \
	  --http app.serving:HeaderTimeoutProtocol \
	  --timeout-keep-alive 5 --limit-concurrency 500 --h11-max-incomplete-event-size 16384

test: $(VENV)/.test-deps
	$(BIN)/python -m pytest -q -p no:cacheprovider -m "not slow" -n auto

# A fresh clone has no ../shared beside it: the test files that read it (through tests/shared_data.py,
# or a helper module of tests/ that does) run once more with it hidden (TOKVIS_HIDE_SHARED=1), and
# each of their tests must pass or skip (the fast tier's and the heavy ones of the slow tier, which
# are most of those that read it). .ci/run runs this after the two tiers.
SHARED_HELPERS := $(subst $(eval) ,|,$(basename $(notdir $(shell grep -l shared_data tests/*.py | grep -v -e conftest -e /test_))))
SHARED_TESTS = $(shell grep -rlE '$(SHARED_HELPERS)' tests --include='test_*.py' | sort)
test-without-shared: $(VENV)/.test-deps
	TOKVIS_HIDE_SHARED=1 $(BIN)/python -m pytest -q -p no:cacheprovider -m "not slow or heavy" -n auto $(SHARED_TESTS)

# two workers, each file's tests on one (a file's servers and browser are module-scoped)
test-slow: $(VENV)/.test-deps
	$(BIN)/python -m pytest -q -p no:cacheprovider -m slow -n 2 --dist loadfile

# both tiers run, whatever the first gives, and both are reported; it fails if either failed
test-all: $(VENV)/.test-deps
	@fast=0; slow=0; \
	$(MAKE) --no-print-directory test || fast=$$?; \
	$(MAKE) --no-print-directory test-slow || slow=$$?; \
	echo "fast tier: $$( [ $$fast = 0 ] && echo passed || echo FAILED ); slow tier: $$( [ $$slow = 0 ] && echo passed || echo FAILED )"; \
	[ $$fast = 0 ] && [ $$slow = 0 ]

bench: $(VENV)/.test-deps
	for f in benchmarks/bench_*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done

# ruff's format, then ruff's and mypy's findings held to lint-baseline/*.json: a (file, rule)
# group may shrink, never grow (scripts/lint_baseline.py; after a fix, `--update` lowers it)
# (all three run whatever the first gives; it fails if any failed)
lint: $(VENV)/.lint-deps
	@status=0; \
	$(BIN)/python -m ruff format --check --output-format concise . || status=1; \
	$(BIN)/python scripts/lint_baseline.py ruff || status=1; \
	$(BIN)/python scripts/lint_baseline.py mypy || status=1; \
	exit $$status

# the docs site (mkdocs.yml, docs/), warnings as errors, into build/site (~10 s);
# NO_MKDOCS_2_WARNING silences mkdocs-material's banner about its successor, not our warnings
docs: $(VENV)/.docs-deps
	NO_MKDOCS_2_WARNING=1 $(BIN)/python -m mkdocs build --strict --quiet --site-dir build/site

# the views' screenshots of the docs site, taken from a running app by a real browser, and
# docs/img/manifest.json: what each shows (tests/test_docs_screenshots.py fails when one is older)
docs-screenshots: $(VENV)/.test-deps $(VENV)/.docs-deps
	$(BIN)/python docs/screenshots.py

# constraints.txt again: every extra installed under the current lock, then frozen (the project
# itself left out). To move to newer releases: `make clean`, delete constraints.txt, `make lock`.
lock: $(VENV)/.test-deps $(VENV)/.lint-deps $(VENV)/.docs-deps $(VENV)/.run-deps
	@{ echo "# The exact releases the tests run with: CI, make and the Dockerfile install under it"; \
	   echo "# (pip install -c constraints.txt ...); pyproject.toml keeps the ranges a user gets."; \
	   echo "# Regenerate with \`make lock\` (see the Makefile); do not edit by hand."; \
	   $(BIN)/python -m pip freeze --exclude-editable; \
	 } > constraints.txt.new && mv constraints.txt.new constraints.txt

clean:
	rm -rf $(VENV) build *.egg-info
