# Every target creates/uses .venv inside the clone; only python3 and the package registries are needed.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: install demo test lint bench clean

$(BIN)/pi-tools: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(BIN)/pi-tools

install: $(BIN)/pi-tools

demo: install
	$(BIN)/pi-tools context fixtures/conformance/cases/c001_tools.jsonl | $(BIN)/pi-tools convert | head -c 1500; echo
	$(BIN)/pi-tools tree fixtures/conformance/cases/c002_branching.jsonl

test: install
	$(BIN)/python -m pytest

lint: install
	$(BIN)/ruff check pi_tools tests benchmarks
	$(BIN)/mypy pi_tools

bench: install
	$(BIN)/python -m pytest benchmarks --benchmark-only -p no:cacheprovider

clean:
	rm -rf $(VENV)
