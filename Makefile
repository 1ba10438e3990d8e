# tcpstart developer commands. `make help` lists them.
PYTHON ?= python3

.PHONY: help install test test-rust test-python lint golden bench crosscheck pgo-profile docs
help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

install: ## build the Rust core and install the Python package
	$(PYTHON) -m pip install -q .

test: install test-rust test-python ## run every test, Rust and Python (what CI runs)

test-rust: ## Rust unit, property and scenario tests
	cargo test --workspace

test-python: ## Python API and CLI tests against the installed package
	$(PYTHON) -m pytest -q -rs tests

lint: ## rustfmt, clippy, ruff, mypy and the core's stub against the installed core (pip install ruff mypy)
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings
	$(PYTHON) -m ruff check python tests
	$(PYTHON) -m mypy
	$(PYTHON) -m mypy.stubtest --ignore-disjoint-bases tcpstart._core

golden: ## regenerate the golden outputs on purpose, then review them (docs/testing.md)
	TCPSTART_BLESS=1 cargo test -p tcpstart-sim --test golden --test columns_doc --test scenario_fields -- --nocapture
	git status --short -- crates/tcpstart-sim/tests/golden/ docs/scenarios.md docs/scenario-reference.md
	@echo "review: git diff crates/tcpstart-sim/tests/golden/ (and say why in the commit)"

bench: ## B1-B4 natively, each in its own process: wall, packets and events per wall second, peak RSS
	cargo run --profile release-lto -p tcpstart-sim --example bench -- B1 B2 B3 B4

docs: ## build the documentation site into site/ (pip install mkdocs mkdocstrings-python); fails on a broken link
	$(PYTHON) -m mkdocs build --strict

crosscheck: install ## tcpstart against ns-3 (pip install ns3==3.44.post0): docs/validation.md
	$(PYTHON) -m tcpstart crosscheck --docs docs

# llvm-profdata of the active toolchain (rustup component llvm-tools).
LLVM_PROFDATA = $(shell rustc --print sysroot)/lib/rustlib/$(shell rustc -vV | sed -n 's/^host: //p')/bin/llvm-profdata

pgo-profile: ## retrain pgo/tcpstart.profdata.gz on pgo/train.py, then install with it (needs: rustup component add llvm-tools)
	TCPSTART_PGO=0 RUSTFLAGS="-Cprofile-generate=$(CURDIR)/target/pgo-raw" $(PYTHON) -m pip install -q .
	# The build's own proc macros and build scripts were instrumented too and wrote profiles
	# while it ran: not the core's code, they would make the committed profile 7x the size.
	rm -rf target/pgo-raw
	$(PYTHON) pgo/train.py 2>&1 | grep -v "^LLVM Profile Warning"
	mkdir -p target/pgo
	$(LLVM_PROFDATA) merge -o target/pgo/trained.profdata target/pgo-raw
	gzip -9n -c target/pgo/trained.profdata > pgo/tcpstart.profdata.gz
	rustc -vV > pgo/rustc-vV.txt
	$(PYTHON) -m pip install -q .
