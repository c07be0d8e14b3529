# JavaScript targets. Placeholder until the module lands.
.PHONY: test-js typecheck test-browser package
test-js:
typecheck:
test-browser:
package:
