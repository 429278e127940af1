# Every target sets itself up: a fresh machine with Python 3.11 needs nothing else.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
RUN_STAMP := $(VENV)/.run-stamp
WEB_STAMP := $(VENV)/.web-stamp
# the compiled core (uno_env/core/): a C++ edit reinstalls, which rebuilds it
CORE   := setup.py $(wildcard uno_env/core/*.cpp uno_env/core/*.hpp)

.PHONY: run test test-quick serve bench docs clean chromium compiler

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# the main job needs the training extra only; the tests need everything (dev)
$(RUN_STAMP): pyproject.toml constraints.txt $(CORE) | $(BIN)/python compiler
	$(BIN)/pip install --quiet -c constraints.txt -e '.[train]'
	touch $(RUN_STAMP)

$(STAMP): pyproject.toml constraints.txt $(CORE) | $(BIN)/python compiler
	$(BIN)/pip install --quiet -c constraints.txt -e '.[dev]'
	touch $(STAMP) $(RUN_STAMP) $(WEB_STAMP)

# the browser app needs the web extra only (the dev install includes it)
$(WEB_STAMP): pyproject.toml constraints.txt $(CORE) | $(BIN)/python compiler
	$(BIN)/pip install --quiet -c constraints.txt -e '.[web]'
	touch $(WEB_STAMP)

## run: the main job: train a small agent (configs/train/quick.yaml, about a minute on an idle 2-core machine once built, longer
##      on a busy one), export it, evaluate it, print a table and the commands to evaluate it against the baselines
##      and play against it (uno-env train prints them)
run: $(RUN_STAMP)
	$(BIN)/uno-env train --config configs/train/quick.yaml --fresh

## test: the whole test suite on both cores (the 15 slowest tests listed at the end): 11 to 13 minutes on an idle
##       2-core machine, twice that or more on a busy one; the first time, start with test-quick
test: $(STAMP) chromium
	$(BIN)/python -m pytest -n 2 --dist worksteal -q --durations=15

## test-quick: everything not marked slow (no training, Ray, browser or long simulations)
test-quick: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist worksteal -q -m "not slow" --durations=15

## serve: play in the browser: installs the web extra into .venv (through constraints.txt), then runs uno-env serve
serve: $(WEB_STAMP)
	$(BIN)/uno-env serve

## compiler: Debian's C++ compiler for the compiled core, where the machine has none (pip builds the core)
compiler:
	command -v g++ >/dev/null || (apt-get update -qq && apt-get install -y -qq g++)

## chromium: Debian's browser for the browser tests (tests/apps/test_serve_browser.py); Playwright's own download is not used
chromium:
	command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium)

## bench: engine throughput, and RLCard's UNO for comparison (installs the optional extra)
bench: $(STAMP)
	$(BIN)/pip install --quiet -c constraints.txt -e '.[dev,rlcard]'
	$(BIN)/uno-env bench engine
	$(BIN)/uno-env bench env

## docs: the documentation site into site/ (mkdocs build --strict: any warning, a broken link or
##       a missing API reference among them, fails the build); its pages link to files, so site/index.html
##       opened from disk works, all but the search (served, it works too: cd site && python -m http.server)
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict
	@echo "docs: open site/index.html in a browser (the search needs it served: cd site && python3 -m http.server)"

clean:
	rm -rf $(VENV) build *.egg-info uno_env/core/*.so
