# Verdict: `make serve` runs the sidecar, `make test` passes the whole suite.
# Both set up what they need on a fresh machine (a venv, npm packages).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.stamp-install
RUNTIME_STAMP := $(VENV)/.stamp-runtime

.PHONY: serve test lint test-python test-asyncio test-random test-browser-bundle bench schema release clean help

help:
	@echo "make serve    set up the runtime alone and run the sidecar on 127.0.0.1:8765 (options: make serve ARGS='--port 9000')"
	@echo "make test     set up and run the whole suite (Python, JS units, type check, browser)"
	@echo "make lint     ruff's lint rules and formatter check, and mypy --strict, over the Python"
	@echo "make test-random  the property tests with fresh randomness (make test runs them derandomized)"
	@echo "make test-asyncio  the Python suite on asyncio's own loop (make test runs it on uvloop, verdict serve's default)"
	@echo "make test-browser VERDICT_GENERATIONS=all  every browser test in Foundry 13 and 14 (make test: both where they differ)"
	@echo "make test-browser-bundle  the browser suite against the module bundled, as the release zip ships it (make test runs it)"
	@echo "make bench    run the benchmarks against their anchors"
	@echo "make package PUBLIC_URL=https://verdict.example.org"
	@echo "              write dist/verdict.zip and dist/module.json, the Foundry module, updating from that sidecar"
	@echo "make release VERSION=x.y.z PUBLIC_URL=https://…/releases/download/vx.y.z"
	@echo "              write dist/: wheel, sdist, verdict.zip, module.json (URLs on PUBLIC_URL), SHA256SUMS, RELEASE-NOTES.md"
	@echo "make schema   regenerate protocol/schema/v1.json, the golden vectors' index, the module's protocol types and rule vocabulary and the table of limits in docs/operating.md"

# Two installs, two stamps: `make serve` needs the runtime alone (what a GM's `pipx install` gets), `make test`
# the test and bench toolchains too. Each stamp says its own install is done, so `make test` after `make serve`
# still installs the extras, and `make serve` after `make test` installs nothing more.
$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(RUNTIME_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test,bench,postgres]'
	touch $@ $(RUNTIME_STAMP)

serve: $(RUNTIME_STAMP)
	$(BIN)/verdict serve $(ARGS)

# The release's files (tools/release.py): refused unless the tree carries VERSION and CHANGELOG.md has its
# section. PUBLIC_URL is where they are downloaded from, side by side (the forge's release page); the module's
# manifest and zip carry absolute URLs on it, so an installed copy checks for updates there. The zip holds the
# module bundled by esbuild (an npm package: NPM_STAMP).
release: $(STAMP) $(NPM_STAMP)
	@test -n "$(VERSION)" || { echo "make release: give VERSION=x.y.z"; exit 2; }
	@test -n "$(PUBLIC_URL)" || { echo "make release: give PUBLIC_URL, where the release's files are downloaded from"; exit 2; }
	$(BIN)/python tools/release.py --version '$(VERSION)' --public-url '$(PUBLIC_URL)' --out dist

# The JavaScript side (npm packages, node units, the type check, the browser tests, the zip).
include mk/js.mk

# The browser suite against the module as the release zip ships it (one bundled ES module, one stylesheet,
# built from the checkout's files when the run starts): the whole suite, as against the plain files, since a
# bundle differs from the plain files wherever the module's own order of evaluation or a missing file would show.
test-browser-bundle: $(STAMP) $(NPM_STAMP) $(CHROMIUM)
	VERDICT_MODULE=bundle $(BROWSER_NICE) $(BIN)/python -m pytest -q -n $(BROWSER_WORKERS) -m browser tests/browser

# `make test`: the quick checks (lint, ESLint, tsc, the node units) beside the Python suite, their output
# printed whole once they end, then the browser suite against the plain files and again against the bundle.
# The checks are single processes at the lowest priority (nice 19): they take only the CPU the Python suite
# leaves while it waits (child sidecars starting, fail-overs, PostgreSQL), so the suite keeps its pace.
# A failure in either stops the run before the browser suite. `make test PARTS=6` starts every part at once
# instead (each part's output printed whole when it ends, the browser suite at a lower priority): for machines
# with more cores than two, where the parts fill each other's waits.
CHECKS := lint lint-js typecheck test-js
PARTS ?= 1

# The suites' processes keep their bytecode: the environment may say not to write it
# (PYTHONDONTWRITEBYTECODE); without the caches every pytest worker compiles each test module again.
unexport PYTHONDONTWRITEBYTECODE

test:
ifeq ($(PARTS),1)
	@$(MAKE) --no-print-directory $(STAMP) $(NPM_STAMP)
	@said=$$(mktemp); \
	nice -n 19 $(MAKE) --no-print-directory -j4 --output-sync=target $(CHECKS) >"$$said" 2>&1 & checks=$$!; \
	$(MAKE) --no-print-directory test-python; python=$$?; \
	wait $$checks; quick=$$?; cat "$$said"; rm -f "$$said"; \
	if [ $$quick -ne 0 ]; then echo "the quick checks failed (above)"; fi; \
	[ $$python -eq 0 ] && [ $$quick -eq 0 ]
	@$(MAKE) --no-print-directory test-browser
	@$(MAKE) --no-print-directory test-browser-bundle
else
	@$(MAKE) --no-print-directory -j$(PARTS) --output-sync=target BROWSER_NICE="nice -n 10" $(CHECKS) test-python test-browser test-browser-bundle
endif
	@echo "all suites passed"

# The Python gate: ruff's lint rules and its formatter, then mypy --strict over the sidecar, the protocol and
# the benchmarks, which no test runs whole (all pinned in the test extra; mypy's settings are in pyproject.toml).
lint: $(STAMP)
	$(BIN)/ruff check sidecar protocol tests bench
	$(BIN)/ruff format --check sidecar protocol tests bench
	$(BIN)/mypy protocol sidecar bench

# The Python suite runs in WORKERS processes (pytest-xdist; tests/conftest.py keeps the builds from the checkout
# in one process), the browser suite in BROWSER_WORKERS (mk/js.mk); each worker has its own sidecar, stand-in
# server, Chromium and PostgreSQL. How long each part takes: docs/architecture/README.md ("Testing").
WORKERS ?= 2

test-python: $(STAMP)
	$(BIN)/python -m pytest -q -n $(WORKERS) --dist loadgroup -m "not browser"

test-asyncio: $(STAMP)
	VERDICT_LOOP=asyncio $(BIN)/python -m pytest -q -n $(WORKERS) --dist loadgroup -m "not browser"

test-random: $(STAMP)
	HYPOTHESIS_PROFILE=random $(BIN)/python -m pytest -q -m "not browser" $$(grep -rl hypothesis tests --include='test_*.py')

bench: $(STAMP)
	$(BIN)/python -m bench

schema: $(STAMP)
	$(BIN)/python -m protocol.generate
	$(BIN)/python -m protocol.typedefs
	$(BIN)/python -m sidecar.vocabulary
	$(BIN)/python -m sidecar.knob_table

clean:
	rm -rf $(VENV) node_modules dist build *.egg-info
