# Every target creates/uses .venv inside the clone; only python3 and the package registries are needed.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: install demo test lint bench clean

$(BIN)/pi-tools: pyproject.toml setup.py
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,dask]'
	@# An editable install leaves the package uncompiled, and with PYTHONDONTWRITEBYTECODE set (as on CI machines)
	@# every run would compile it again: about 25 ms of each command's start.
	$(BIN)/python -m compileall -q pi_tools templates >/dev/null
	touch $(BIN)/pi-tools

install: $(BIN)/pi-tools

DEMO := fixtures/conformance/cases/c004_crossprovider.jsonl

demo: install
	@echo "== the entry tree of a branching session"
	$(BIN)/pi-tools tree fixtures/conformance/cases/c002_branching.jsonl | head -25
	@echo "== what Pi 1.6 (the default; --pi 0.85 for Pi 0.85) would send to Anthropic for a cross-provider session (context | convert | payload)"
	$(BIN)/pi-tools context $(DEMO) | $(BIN)/pi-tools convert \
	  | $(BIN)/pi-tools payload --api anthropic-messages --model anthropic/claude-sonnet-4-5 \
	  | $(BIN)/python -c "import json,sys; d=json.loads(sys.stdin.readline()); print(json.dumps(d['payload'], indent=1, ensure_ascii=False)[:2500])"
	@echo "== diagnostics pi-tools reports for the ten real damaged sessions"
	$(BIN)/pi-tools context fixtures/realworld/*.jsonl \
	  | $(BIN)/python -c "import json,sys; [print(d['source'].split('/')[-1][:60].ljust(62), len(d['messages']), 'messages;', ', '.join(sorted({x['code'] for x in d['diagnostics']})) or 'clean') for d in map(json.loads, sys.stdin)]"

test: install
	$(BIN)/python -m pytest

lint: install
	$(BIN)/ruff check pi_tools tests benchmarks
	$(BIN)/mypy pi_tools
	$(BIN)/lint-imports

# The usage benchmark compares with ccusage (npm); it is installed into a scratch folder, never into the repo.
CCUSAGE_DIR ?= /tmp/pi-tools-ccusage

bench: install
	@command -v npm >/dev/null && [ -x $(CCUSAGE_DIR)/node_modules/.bin/ccusage ] || \
	  (mkdir -p $(CCUSAGE_DIR) && cd $(CCUSAGE_DIR) && npm install --no-save --silent ccusage@20.0.24 @ccusage/ccusage-linux-x64@20.0.24) || true
	CCUSAGE=$(CCUSAGE_DIR)/node_modules/.bin/ccusage $(BIN)/python -m pytest benchmarks -p no:cacheprovider -s \
	  --benchmark-columns=min,mean,max

clean:
	rm -rf $(VENV)
