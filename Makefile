# aqmlab: every command the README and CI use lives here.
# A fresh machine needs only python3 (3.11+) and a Rust toolchain: `make` creates the
# virtual environment .venv, installs the pinned Python packages and builds the engine.

PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.deps-$(shell cksum requirements-dev.txt | cut -d' ' -f1)
OUT    ?= results/reproduce

.PHONY: all run test test-rust test-python test-slow bench lint fmt develop wheel clean ns3

all: develop

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): requirements-dev.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	rm -f $(VENV)/.deps-*
	touch $@

# Builds the Rust extension in release mode into the virtual environment.
# The checkout's path is remapped to "." and Cargo's home (where the dependencies' sources
# live) to "cargo", in Rust and in the C that dependencies compile (mimalloc), so that the
# built module names no machine path (its panic locations, __FILE__ and debug names).
CARGO_HOME ?= $(HOME)/.cargo
REMAP = RUSTFLAGS="--remap-path-prefix=$(CURDIR)=. --remap-path-prefix=$(CARGO_HOME)=cargo" \
	CFLAGS="-ffile-prefix-map=$(CURDIR)=. -ffile-prefix-map=$(CARGO_HOME)=cargo"
develop: $(STAMP)
	VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(BIN)):$$PATH $(REMAP) \
		$(BIN)/maturin develop --release --quiet

# The installable wheel (docs/install.md) in $(WHEEL_DIR): the same release build with the
# same flags as `develop`, so that after `make develop` it only packs (seconds), and the
# module in it names no machine path either. `pip install dist/aqmlab-*.whl` anywhere.
WHEEL_DIR ?= dist
wheel: $(STAMP)
	$(REMAP) $(BIN)/maturin build --release --quiet --out $(WHEEL_DIR)

# The main job: every paper reproduction at quick size (REM, PSAND, ...), reports in $(OUT).
run: develop
	$(BIN)/aqmlab reproduce --out $(OUT)

# Every test: Rust (release: the statistical validation cases need the speed) and Python.
test: test-rust test-python

test-rust:
	cargo test --profile ci -p aqmlab-core

test-python: develop
	$(BIN)/python -m pytest -q

test-slow: develop
	$(BIN)/python -m pytest -q -m slow

bench:
	cargo run --release -p aqmlab-core --example engine_bench

lint: $(STAMP)
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings
	$(BIN)/ruff check python tests benchmarks examples
	$(BIN)/ruff format --check python tests benchmarks examples

fmt: $(STAMP)
	cargo fmt --all
	$(BIN)/ruff format python tests examples
	$(BIN)/ruff check --fix python tests examples

# ns-3.44, the second reference simulator (`aqmlab crosscheck --ns3`, docs/ns3.md), in its
# own environment: the PyPI build of ns-3 (cppyy bindings, about 500 MB installed).
NS3_VENV ?= .ns3-venv
NS3_PKG  ?= ns3==3.44.post0

ns3: $(NS3_VENV)/.installed-$(NS3_PKG)

$(NS3_VENV)/.installed-$(NS3_PKG):
	$(PYTHON) -m venv $(NS3_VENV)
	$(NS3_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(NS3_VENV)/bin/python -m pip install --quiet "$(NS3_PKG)"
	touch "$@"

clean:
	rm -rf target $(VENV) results
