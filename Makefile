# Every target sets itself up: a fresh machine with Python 3.11 needs nothing else.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: run test test-quick bench clean

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
test: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist worksteal -q

## test-quick: everything but the long invariant simulations (about 40 seconds)
test-quick: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist worksteal -q -m "not slow"

## bench: engine throughput, and RLCard's UNO for comparison (installs the optional extra)
bench: $(STAMP)
	$(BIN)/pip install --quiet -c constraints.txt -e '.[dev,rlcard]'
	$(BIN)/uno-env bench engine
	$(BIN)/uno-env bench env

clean:
	rm -rf $(VENV) build *.egg-info
