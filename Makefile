# Two commands do all set-up on a fresh machine:
#   make demo   -- the whole loop (emulator + sample backend + app window, or headless timeline)
#   make test   -- the whole suite
# Both create .venv, install the project with its extras, and install the
# system packages (Chromium, Xvfb, Qt's xcb libs) where they are missing and we
# are root on Debian; elsewhere they print the exact install step.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
PYTEST_ARGS ?=

.PHONY: setup system-deps venv demo test lint bench bench-publish clean kits-check conformance

setup: system-deps venv

system-deps:
	@$(PYTHON) .ci/system_deps.py

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@echo "==> installing gc-bridge and its extras into $(VENV)"
	@$(PY) -m pip install -q --upgrade pip
	@$(PY) -m pip install -q -e ".[dev]"
	@touch $(STAMP)

venv: $(STAMP)

# extra flags for the demo, e.g. make demo DEMO_ARGS=--exit-after-flow (the tests use it)
DEMO_ARGS ?=

demo: setup
	$(VENV)/bin/gcbridge demo $(DEMO_ARGS)

# --gc-engine all: a machine that lost Chromium or WebKit is red, not quietly half-tested
test: setup lint kits-check
	$(PY) -m pytest --gc-engine all $(PYTEST_ARGS)

lint: venv
	$(VENV)/bin/ruff check src harness tests docs_src bench
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

# writes bench/out/ (ignored by git); BENCH_ARGS="--rows 1,2 --quick" for a partial run
bench: setup
	@$(PY) -m pip install -q -e ".[dev,bench]"
	@echo "==> make bench writes bench/out/ (make bench-publish rewrites the committed bench/results.md)"
	$(PY) bench/run.py $(BENCH_ARGS)

# a full run that rewrites the committed bench/results.md and bench/results.json
bench-publish: setup
	@$(PY) -m pip install -q -e ".[dev,bench]"
	$(PY) bench/run.py --publish

# the harness scenarios against a bridge.js of your own: make conformance BRIDGE=path/to/bridge.js
conformance: setup
	$(PY) -m pytest --pyargs gcbridge_harness.scenarios $(if $(BRIDGE),--gc-bridge $(BRIDGE),) -q

# the kits' copies of bridge.js, then bridge/protocol/app-protocol.json run against the
# Python, TypeScript (the kit's tsc + node --test) and Kotlin (kotlinc + JVM) coordinators
kits-check: setup
	$(PY) bridge/platforms/sync_kits.py --check
	$(PY) bridge/protocol/kits_check.py

clean:
	rm -rf $(VENV) .gcbridge build dist
