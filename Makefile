# a2a-lambda — `make help` lists the targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help

CARGO ?= cargo
HOST ?= 127.0.0.1
PORT ?= 9000
AGENT ?= echo
export RUSTDOCFLAGS := -D warnings

.PHONY: help run build test fmt fmt-check lint doc unit interop bench load clean

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

clean: ## Remove build output
	$(CARGO) clean
