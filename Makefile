# tcpstart developer commands. `make help` lists them.
PYTHON ?= python3

.PHONY: help install test test-rust test-python bench crosscheck
help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

install: ## build the Rust core and install the Python package
	$(PYTHON) -m pip install -q .

test: install test-rust test-python ## run every test, Rust and Python (what CI runs)

test-rust: ## Rust unit, property and scenario tests
	cargo test --workspace

test-python: ## Python API and CLI tests against the installed package
	$(PYTHON) -m pytest -q tests

bench: ## simulated packets per wall second on the reference scenario
	cargo run --profile release-lto -p tcpstart-sim --example bench

crosscheck: install ## tcpstart against ns-3 (pip install ns3==3.44.post0): docs/validation.md
	$(PYTHON) -m tcpstart crosscheck
