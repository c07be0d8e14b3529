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

test-browser: $(STAMP) $(NPM_STAMP) $(CHROMIUM)
	$(BIN)/python -m pytest -q -m browser tests/browser

# The same zip the sidecar serves at /module/verdict.zip.
package: $(STAMP)
	mkdir -p dist
	$(BIN)/python -c "import sys; from sidecar.server.module import build_zip; open('dist/verdict.zip', 'wb').write(build_zip())"
	@echo "dist/verdict.zip"
