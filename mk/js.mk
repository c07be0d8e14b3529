# JavaScript side: npm packages (once, through a stamp), node units, the type check against the pinned
# Foundry types, ESLint over the module's scripts, the browser tests against a real sidecar, and the
# module's release zip.
.PHONY: test-js typecheck lint-js test-browser package

NPM_STAMP := node_modules/.stamp-npm
CHROMIUM ?= /usr/bin/chromium

$(NPM_STAMP): package.json $(wildcard package-lock.json)
	@if [ -f package-lock.json ]; then npm ci --no-audit --no-fund --silent; else npm install --no-audit --no-fund --silent; fi
	touch $@

test-js: $(NPM_STAMP)
	node --test --test-reporter=dot tests/js/

typecheck: $(NPM_STAMP)
	npx --no-install tsc -p .

# ESLint (flat config: eslint.config.mjs) over the module's scripts; any problem fails.
lint-js: $(NPM_STAMP)
	npx --no-install eslint --max-warnings 0 vtt-module/scripts

$(CHROMIUM):
	apt-get update -qq && apt-get install -y -qq chromium

# The browser suite's workers (WORKERS, as the Python suite's, unless BROWSER_WORKERS is given). A browser
# test's page loads are CPU-bound: more workers than cores add load to every test's waits, not speed.
BROWSER_WORKERS ?= $(WORKERS)
BROWSER_NICE ?=

test-browser: $(STAMP) $(NPM_STAMP) $(CHROMIUM)
	$(BROWSER_NICE) $(BIN)/python -m pytest -q -n $(BROWSER_WORKERS) -m browser tests/browser

# The module's release files, the same the sidecar at PUBLIC_URL serves under /module/: dist/verdict.zip and
# dist/module.json, their manifest and download URLs absolute on PUBLIC_URL so an installed copy checks for
# updates there. Without PUBLIC_URL (or $$VERDICT_PUBLIC_URL) `verdict module` refuses and says why.
package: $(RUNTIME_STAMP)
	$(BIN)/verdict module --zip dist/verdict.zip --manifest dist/module.json $(if $(PUBLIC_URL),--public-url '$(PUBLIC_URL)')
