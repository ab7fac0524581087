# The front door. Every target installs what it needs into .venv/ and node_modules/ on first use.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PY_STAMP := $(VENV)/.jaxdeck-installed
NPM_STAMP := node_modules/.jaxdeck-installed
DECK ?=
PORT ?= 8888
DECKS := $(if $(DECK),slides/$(DECK:slides/%=%),)
DECKS := $(if $(DECKS),$(if $(filter %.md,$(DECKS)),$(DECKS),$(DECKS).md),)

.PHONY: all slides pdf check present preview test bench clean setup help

all: setup ## build every deck: notebooks, HTML, PDFs
	$(PY) -m jaxdeck build --pdf $(DECKS)

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | expand -t 12

$(PY_STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	@touch $@

$(NPM_STAMP): package.json package-lock.json
	@command -v npm >/dev/null || { echo "npm not found: install Node.js (sudo apt-get install nodejs npm) to fetch reveal.js and KaTeX"; exit 1; }
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

setup: $(PY_STAMP) $(NPM_STAMP) ## install Python and front-end dependencies

slides: setup ## convert + execute + export HTML: build/notebooks/NAME.ipynb, build/html/NAME.html
	$(PY) -m jaxdeck build $(DECKS)

pdf: setup ## slides PDF and handout PDF: build/pdf/NAME.pdf, build/pdf/NAME-handout.pdf
	$(PY) -m jaxdeck pdf $(DECKS)

check: setup ## lint decks in a real browser: overflow, missing notes, slow cells, images
	$(PY) -m jaxdeck check $(DECKS)

present: setup ## Jupyter + RISE on 127.0.0.1 with a token: make present [DECK=NAME] [PORT=N]
	$(PY) -m jaxdeck present $(DECKS) --port $(PORT)

preview: setup ## the HTML deck on 127.0.0.1, rebuilt on save, reloaded at the same slide: make preview [DECK=NAME] [PORT=N]
	$(PY) -m jaxdeck preview $(DECKS) $(if $(filter command line environment,$(origin PORT)),--port $(PORT),)

bench: setup ## performance benchmarks (not part of make test): build/bench/*.json
	$(PY) -m jaxdeck bench $(DECKS)

test: setup ## the whole pytest suite
	$(PY) -m pytest

clean: ## remove build/ (artefacts and caches)
	rm -rf build
