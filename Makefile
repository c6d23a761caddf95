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
# one part of the suite: make test PYTEST_ARGS="tests/webhooks -k receiver"
PYTEST_ARGS ?=
# the suite runs on every core (pytest-xdist); tests on fixed ports share one worker
PYTEST_XDIST ?= -n auto --dist loadgroup

.PHONY: setup system-deps venv demo test test-clock-skew lint bench bench-publish clean kits-check conformance

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
# --durations=15: the run ends with its 15 slowest tests (speed goes to bench/, not asserts)
test: setup lint kits-check
	$(PY) -m pytest --gc-engine all $(PYTEST_XDIST) --durations=15 $(PYTEST_ARGS)

# the suite with the wall clock 400 s behind while it collects: .ci/clock_skew.c, preloaded,
# reads the skew from a file that tests/conftest.py sets to 0 once collection is over, so
# a timestamp taken at import or collection is 400 s stale when a test uses it
SKEW_LIB := $(VENV)/clock_skew.so
$(SKEW_LIB): .ci/clock_skew.c
	@mkdir -p $(VENV)
	gcc -O2 -shared -fPIC -o $@ $< -ldl

test-clock-skew: setup $(SKEW_LIB)
	@echo "-400" > $(VENV)/clock-skew
	LD_PRELOAD=$(abspath $(SKEW_LIB)) GC_CLOCK_SKEW_FILE=$(abspath $(VENV))/clock-skew \
	  $(PY) -m pytest --gc-engine all $(PYTEST_XDIST) --durations=15 $(PYTEST_ARGS)

lint: venv
	$(VENV)/bin/ruff check src harness tests docs_src bench
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

# writes bench/out/ (ignored by git); BENCH_ARGS="--rows 1,2 --quick" for a partial run
bench: setup
	@$(PY) -m pip install -q -e ".[dev,bench]"
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
