# a2a-lambda — `make help` lists the targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help

CARGO ?= cargo
HOST ?= 127.0.0.1
PORT ?= 9000
AGENT ?= echo
export RUSTDOCFLAGS := -D warnings

.PHONY: help run build test fmt fmt-check lint doc unit interop bench load watch deploy cargo-lambda clean

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

run: ## Build and start the emulator on $(HOST):$(PORT) with the $(AGENT) agent
	$(CARGO) run --release -p a2a-emulator -- --host $(HOST) --port $(PORT) --agent $(AGENT)

build: ## Build every crate
	$(CARGO) build --workspace --all-targets

test: fmt-check lint doc unit interop ## Everything CI checks: fmt, clippy, docs, every test, official clients

fmt: ## Format the code
	$(CARGO) fmt --all

fmt-check: ## Check formatting
	$(CARGO) fmt --all -- --check

lint: ## Clippy on every target, warnings denied
	$(CARGO) clippy --workspace --all-targets -- -D warnings

doc: ## Build the docs, warnings denied
	$(CARGO) doc --workspace --no-deps

unit: ## Run every test in the workspace
	$(CARGO) test --workspace --all-targets
	$(CARGO) test --workspace --doc

interop: ## The official Python and JS A2A clients against the emulator
	tests/interop/run.sh

bench: ## Criterion benchmarks (parse + convert) and the load benchmark
	$(CARGO) bench -p a2a-core
	scripts/load.py

load: ## Load benchmark: emulator vs a minimal JSON-RPC ceiling (needs wrk)
	scripts/load.py

# cargo-lambda comes from PyPI (seconds) into a local venv, never `cargo install` (half an hour).
TOOLS_VENV ?= .venv-tools
CARGO_LAMBDA := $(TOOLS_VENV)/bin/cargo-lambda

cargo-lambda: $(CARGO_LAMBDA) ## Install cargo-lambda (and zig) from PyPI into .venv-tools

$(CARGO_LAMBDA):
	python3 -m venv $(TOOLS_VENV)
	$(TOOLS_VENV)/bin/pip install -q cargo-lambda ziglang

watch: $(CARGO_LAMBDA) ## Run the Lambda function locally on 127.0.0.1:9001 (cargo lambda watch)
	PATH="$(abspath $(TOOLS_VENV))/bin:$$PATH" cargo lambda watch -A 127.0.0.1 -P 9001 -p a2a-agent

deploy: $(CARGO_LAMBDA) ## Build for arm64 and deploy the echo agent with cargo lambda deploy
	PATH="$(abspath $(TOOLS_VENV))/bin:$$PATH" cargo lambda build --release --arm64 -p a2a-agent
	PATH="$(abspath $(TOOLS_VENV))/bin:$$PATH" cargo lambda deploy a2a-agent

clean: ## Remove build output
	$(CARGO) clean
