# Two commands on a fresh machine:  `make run` (the app on http://127.0.0.1:8000)  and  `make test`
# (the fast tier; `make test-slow` runs the slow one: real browser, the wheel, end-to-end job runs;
# `make test-all` both, as CI does).
PYTHON ?= python3
HOST ?= 127.0.0.1
PORT ?= 8000
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test test-slow test-all bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.run-deps: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[mix]'
	touch $@

$(VENV)/.test-deps: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $@ $(VENV)/.run-deps

# the store migrated first (`tokvis db upgrade`: a new store is created, an older one adopted
# with every row), then served as a deployment serves it (README, "Deployment"): a request's head must arrive within
# TOKVIS_HEADER_TIMEOUT seconds (app/serving.py), an idle kept-alive connection closes after 5 s
run: $(VENV)/.run-deps
	$(BIN)/python -m app.cli db upgrade
	$(BIN)/python -m uvicorn app.main:app --host $(HOST) --port $(PORT) \
	  --http app.serving:HeaderTimeoutProtocol \
	  --timeout-keep-alive 5 --limit-concurrency 500 --h11-max-incomplete-event-size 16384

test: $(VENV)/.test-deps
	$(BIN)/python -m pytest -q -p no:cacheprovider -m "not slow" -n auto

test-slow: $(VENV)/.test-deps
	$(BIN)/python -m pytest -q -p no:cacheprovider -m slow

# both tiers run, whatever the first gives, and both are reported; it fails if either failed
test-all: $(VENV)/.test-deps
	@fast=0; slow=0; \
	$(MAKE) --no-print-directory test || fast=$$?; \
	$(MAKE) --no-print-directory test-slow || slow=$$?; \
	echo "fast tier: $$( [ $$fast = 0 ] && echo passed || echo FAILED ); slow tier: $$( [ $$slow = 0 ] && echo passed || echo FAILED )"; \
	[ $$fast = 0 ] && [ $$slow = 0 ]

bench: $(VENV)/.test-deps
	for f in benchmarks/bench_*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info
