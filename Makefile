# Everything runs on the project's own Node 24 (the npm package `node`), never the machine's.
SHELL := /bin/bash
export PATH := $(CURDIR)/node_modules/.bin:$(PATH)

INSTALL_STAMP := node_modules/.install-stamp

.PHONY: install run generate check-generated typecheck test test-ts validate bench matrix clean

## install: npm dependencies (Node 24 included) from the lockfile
install: $(INSTALL_STAMP)
$(INSTALL_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

## run: start the gateway (CONFIG=<file>, default ./config.yaml if present, else the embedded demo config)
run: install
	node server/main.ts $(if $(CONFIG),--config $(CONFIG))

## validate: check a config file without serving (CONFIG=<file>)
validate: install
	node server/main.ts --validate $(or $(CONFIG),config.yaml)

## generate: spec/ -> generated/ (types, precompiled validators)
generate: install
	node codegen/generate.ts

## check-generated: fail when regenerating changes anything checked in
check-generated: generate
	@changes=$$(git status --porcelain --untracked-files=all -- generated); \
	if [ -n "$$changes" ]; then \
	  echo "generated/ is out of date with spec/ (run 'make generate' and commit):"; echo "$$changes"; \
	  git --no-pager diff --stat -- generated; exit 1; \
	fi; echo "generated/ matches spec/"

typecheck: install
	tsc -p tsconfig.json

test-ts: install
	vitest run --reporter=default --reporter=json --outputFile.json=.vitest-report.json; \
	status=$$?; node test/support/print-test-summary.ts .vitest-report.json || true; exit $$status

## test: the whole suite (what CI runs)
test: check-generated typecheck test-ts

## matrix: the 6 x 6 protocol matrix with the official SDKs, printed as a table (also part of test)
matrix: install
	node test/matrix/print-matrix.ts

## bench: load benchmarks against a mock upstream (not part of test)
bench: install
	node bench/run.ts

clean:
	rm -rf dist node_modules/.install-stamp
