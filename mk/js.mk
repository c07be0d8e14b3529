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
	node --test tests/js/

typecheck: $(NPM_STAMP)
	npx --no-install tsc -p .

# ESLint (flat config: eslint.config.mjs) over the module's scripts; any problem fails.
lint-js: $(NPM_STAMP)
	npx --no-install eslint --max-warnings 0 vtt-module/scripts

$(CHROMIUM):
	apt-get update -qq && apt-get install -y -qq chromium

# Three workers on two cores: a browser test waits (on the sidecar, the stand-in server, the module's timers,
# Chromium's frames) about half its time, so a third worker fills the waits of the other two. `make test
# WORKERS=N` sets both suites' workers.
BROWSER_WORKERS ?= $(if $(filter command line,$(origin WORKERS)),$(WORKERS),3)
BROWSER_NICE ?=

test-browser: $(STAMP) $(NPM_STAMP) $(CHROMIUM)
	$(BROWSER_NICE) $(BIN)/python -m pytest -q -n $(BROWSER_WORKERS) -m browser tests/browser

# The module's release files, the same the sidecar at PUBLIC_URL serves under /module/: dist/verdict.zip and
# dist/module.json, their manifest and download URLs absolute on PUBLIC_URL so an installed copy checks for
# updates there. Without PUBLIC_URL (or $$VERDICT_PUBLIC_URL) `verdict module` refuses and says why.
package: $(STAMP)
	$(BIN)/verdict module --zip dist/verdict.zip --manifest dist/module.json $(if $(PUBLIC_URL),--public-url '$(PUBLIC_URL)')
