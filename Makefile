# Every target sets itself up: a fresh machine with Python 3.11 needs nothing else.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: run test test-quick bench docs clean chromium

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c constraints.txt -e '.[dev]'
	touch $(STAMP)

## run: the main job: train a small agent (configs/train/quick.yaml, about two minutes), export it, evaluate it, print a table
##      and the commands to evaluate it against the baselines and play against it (uno-env train prints them)
run: $(STAMP)
	$(BIN)/uno-env train --config configs/train/quick.yaml --fresh

## test: the whole test suite on both cores
test: $(STAMP) chromium
	$(BIN)/python -m pytest -n 2 --dist worksteal -q

## test-quick: everything but the long invariant simulations (about 4 minutes)
test-quick: $(STAMP) chromium
	$(BIN)/python -m pytest -n 2 --dist worksteal -q -m "not slow"

## chromium: Debian's browser for the browser tests (tests/test_serve_browser.py); Playwright's own download is not used
chromium:
	command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium)

## bench: engine throughput, and RLCard's UNO for comparison (installs the optional extra)
bench: $(STAMP)
	$(BIN)/pip install --quiet -c constraints.txt -e '.[dev,rlcard]'
	$(BIN)/uno-env bench engine
	$(BIN)/uno-env bench env

## docs: the documentation site into site/ (mkdocs build --strict: any warning, a broken link or
##       a missing API reference among them, fails the build); open site/index.html
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

clean:
	rm -rf $(VENV) build *.egg-info
