# Everything runs on the project's own Node 24 (the npm package `node`), never the machine's.
SHELL := /bin/bash
export PATH := $(CURDIR)/node_modules/.bin:$(PATH)

INSTALL_STAMP := node_modules/.install-stamp

.PHONY: install system-packages run generate clients check-generated typecheck format lint test test-ts test-clients validate bench profile matrix release-client clean

## install: npm dependencies (Node 24 included) from the lockfile; skipped while package.json and package-lock.json are what the last install saw (by content: a checkout or merge that only touches their file times reinstalls nothing)
install:
	@want=$$(cat package.json package-lock.json | sha256sum | cut -d' ' -f1); \
	if [ -d node_modules ] && [ "$$(cat $(INSTALL_STAMP) 2>/dev/null)" = "$$want" ]; then exit 0; fi; \
	echo "npm ci --no-audit --no-fund"; npm ci --no-audit --no-fund && echo "$$want" > $(INSTALL_STAMP)

## system-packages: Debian packages the tests need (chromium, promtool, podman, ca-certificates, systemd-analyze, postgresql), installed only when missing
system-packages:
	bash scripts/system-packages.sh

## run: start the gateway (CONFIG=<file>, default ./config.yaml if present, else the embedded demo config), with the main thread's Node flags (server/app/heap-sizing.ts; dist/gateway carries them inside)
MAIN_THREAD_NODE_FLAGS = $(shell $(CURDIR)/node_modules/.bin/node --input-type=module -e "import('./server/app/heap-sizing.ts').then((m) => console.log(m.MAIN_THREAD_NODE_FLAGS.join(' ')))")
run: install
	node $(MAIN_THREAD_NODE_FLAGS) server/main.ts $(if $(CONFIG),--config $(CONFIG))

## validate: check a config file without serving (CONFIG=<file>)
validate: install
	node server/main.ts --validate $(or $(CONFIG),config.yaml)

## generate: spec/ -> generated/ (types, precompiled validators)
generate: install
	node codegen/generate.ts

## clients: spec/openapi.json -> clients-ts/, clients-py/, clients-go/ (each generator pinned; deterministic)
CLIENTS := ts py go
clients: install
	@for c in $(CLIENTS); do bash clients-$$c/scripts/generate.sh || exit 1; done

## check-generated: fail when regenerating (server types, validators, the three clients) changes anything
check-generated: generate clients
	@changes=$$(git status --porcelain --untracked-files=all -- generated clients-ts clients-py clients-go); \
	if [ -n "$$changes" ]; then \
	  echo "generated code is out of date with spec/ (run 'make generate clients' and commit):"; echo "$$changes"; \
	  git --no-pager diff --stat -- generated clients-ts clients-py clients-go; exit 1; \
	fi; echo "generated/ and clients-*/ match spec/"

typecheck: install
	tsc -p tsconfig.json

## format: rewrite the hand-written TypeScript in the project's style (Biome; biome.jsonc names the files and the rules)
format: install
	biome format --write .

## lint: check the format and the lint rules of the hand-written TypeScript, writing nothing (part of test)
lint: install
	biome ci --error-on-warnings .

test-ts: install system-packages
	vitest run --reporter=default --reporter=json --outputFile.json=.vitest-report.json; \
	status=$$?; node test/support/print-test-summary.ts .vitest-report.json || true; exit $$status

## test-clients: each generated client's own suite, in its own language, against a live gateway
test-clients: install
	@for c in $(CLIENTS); do bash clients-$$c/scripts/test.sh || exit 1; done

## test: the whole suite (what CI runs)
test: check-generated typecheck lint test-ts test-clients

## matrix: the 6 x 6 protocol matrix with the official SDKs, printed as a table (also part of test)
matrix: install
	node test/matrix/print-matrix.ts

## binary: dist/gateway and dist/gateway-admin, single executables (Node 24 SEA) with the code, catalog, admin spec and version inside; no node_modules needed to run them
.PHONY: binary gateway-binary cli-binary cli-package
binary: gateway-binary cli-binary

## gateway-binary: dist/gateway only
gateway-binary: install
	node build/build-binary.ts

## cli-binary: dist/gateway-admin only (the admin CLI as a single executable)
cli-binary: install
	node build/build-cli.ts --executable

## cli-package: dist/gateway-admin-cli-<version>.tgz, the admin CLI as an npm package (JavaScript, no dependencies, Node >= 20): npm install -g <file>
cli-package: install
	mkdir -p dist && cd cli && npm pack --pack-destination ../dist

## image: the container image (deploy/container/Containerfile) FROM scratch around dist/gateway, tagged gateway:<version> (IMAGE=name:tag to change)
.PHONY: image
IMAGE_VERSION := $(shell node -p 'require("./package.json").version' 2>/dev/null)
IMAGE ?= gateway:$(IMAGE_VERSION)
image: gateway-binary
	node build/container-context.ts
	podman build --format docker --build-arg VERSION=$(IMAGE_VERSION) -f deploy/container/Containerfile -t $(IMAGE) dist/container-context

## release: the executables (make binary: dist/gateway, dist/gateway-admin), dist/sbom.cdx.json (CycloneDX SBOM of the production dependencies and the Node runtime) and dist/SHA256SUMS (check with: cd dist && sha256sum -c SHA256SUMS)
.PHONY: release
release: binary
	node build/release.ts

## bench: the performance suite against a six-protocol mock upstream, with baselines (bench/README.md; BENCH_QUICK=1 for a smoke run; not part of test). It measures what a user runs: dist/gateway, built first from this checkout (BENCH_GATEWAY= for node server/main.ts)
bench: install gateway-binary
	BENCH_GATEWAY=$${BENCH_GATEWAY-dist/gateway} node bench/run.ts

## bench-soak: BENCH_SOAK_MINUTES (default 10) of load through a pool whose one lane fails 30% (500, reset, hang): zero client errors, failovers, breaker trips, RSS slope; dist/gateway as make bench
.PHONY: bench-soak
bench-soak: install gateway-binary
	BENCH_GATEWAY=$${BENCH_GATEWAY-dist/gateway} BENCH_SOAK_MINUTES=$${BENCH_SOAK_MINUTES:-10} node bench/run.ts

## profile: CPU profile of one scenario under load (PROFILE_SCENARIO, default openai->openai), busy time by place
profile: install
	node bench/profile.ts

## release-client: CLIENT=ts|py|go; tags clients-<CLIENT>/vX.Y.Z from the client's own version (clean tree only)
release-client:
	@test -n "$(CLIENT)" || { echo "usage: make release-client CLIENT=ts|py|go"; exit 2; }
	@test -z "$$(git status --porcelain)" || { echo "refusing to release from a dirty tree (commit or stash first)"; exit 1; }
	@version=$$(cat clients-$(CLIENT)/VERSION) && tag="clients-$(CLIENT)/v$$version" && \
	grep -q "## $$version" clients-$(CLIENT)/CHANGELOG.md || { echo "clients-$(CLIENT)/CHANGELOG.md has no entry for $$version"; exit 1; }; \
	! git rev-parse -q --verify "refs/tags/$$tag" >/dev/null || { echo "$$tag exists already"; exit 1; }; \
	git tag -a "$$tag" -m "clients-$(CLIENT) $$version" && echo "tagged $$tag (push it with: git push origin $$tag)"

clean:
	rm -rf dist node_modules/.install-stamp
