# The README's commands. Each one installs what it needs into .venv first.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test lint bench clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	@touch $(STAMP)

## Run the main job on the bundled samples.
demo: $(STAMP)
	$(BIN)/article-runtime extract samples/ --format markdown

## Lint, type-check and run the whole test suite.
test: $(STAMP) lint
	$(BIN)/pytest -q

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

## Extraction benchmark over ../shared/bench and ../shared/samples-multilingual (prints a table).
bench: $(STAMP)
	$(BIN)/python -m bench.run

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
