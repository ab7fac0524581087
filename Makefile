# The front door. Every target installs what it needs into .venv/ and node_modules/ on first use.
SHELL := /bin/bash
# the Python .venv is made from: the oldest Python 3.12 or newer on PATH or in pyenv (JAX 0.11 and
# newer need 3.12), else python3 (on Python 3.11 the lock gives JAX 0.10.2, the newest for 3.11);
# PYTHON=/path/to/python chooses
ifndef PYTHON
PYTHON := $(shell for c in python3.12 python3.13 python3.14 python3.15 $$(ls -d "$${PYENV_ROOT:-$$HOME/.pyenv}"/versions/3.1[2-9]*/bin/python3 2>/dev/null); do \
  "$$c" -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1 && { echo "$$c"; exit; }; done; echo python3)
endif
VENV := .venv
PY := $(VENV)/bin/python
PY_STAMP := $(VENV)/.jaxdeck-installed
COMPILED := $(VENV)/.jaxdeck-compiled
UV_VERSION := 0.13.9
UV := .uv/bin/uv
INSTALLER ?= uv
REMEMBERED := $(strip $(shell cat $(VENV)/.jaxdeck-extras 2>/dev/null))
EXTRAS ?= $(REMEMBERED)
# another choice of extras, or of Python, than the one installed re-syncs .venv
RESYNC := $(if $(filter-out $(REMEMBERED),$(EXTRAS))$(filter-out $(EXTRAS),$(REMEMBERED)),FORCE,)
RESYNC := $(RESYNC)$(if $(filter-out $(shell cat $(VENV)/.jaxdeck-python 2>/dev/null),$(PYTHON)),FORCE,)
# what `make` installs besides the package itself: the live slideshow, the browser, the tests' tools
OWN_EXTRAS := live browser dev
JOBS ?=
NPM_STAMP := node_modules/.jaxdeck-installed
# the live slideshow's front end: TypeScript in LIVE_EXT, built as a JupyterLab prebuilt extension
# into jaxdeck/live/labextensions/jaxdeck-live/ (its package.json's jupyterlab.outputDir), where
# the server loads it from; it belongs to the toolchain beside this Makefile, also when another
# folder runs it (make -f)
TOOLCHAIN := $(patsubst %/,%,$(dir $(abspath $(firstword $(MAKEFILE_LIST)))))
LIVE_EXT ?= $(TOOLCHAIN)/jaxdeck/live/extension
LIVE_BUILT = $(abspath $(LIVE_EXT)/../labextensions/jaxdeck-live/package.json)
LIVE_SOURCES = $(LIVE_EXT)/package.json $(LIVE_EXT)/tsconfig.json $(wildcard $(LIVE_EXT)/src/*.ts)
DECK ?=
PORT ?= 8888
DECKS := $(if $(DECK),slides/$(DECK:slides/%=%),)
DECKS := $(if $(DECKS),$(if $(filter %.md,$(DECKS)),$(DECKS),$(DECKS).md),)

.PHONY: all slides pdf article site check present present-stop rehearse preview new test test-quick bench clean setup extension help lock wheelhouse FORCE

all: setup ## build every deck, side by side (JOBS=N decks at once): notebooks, HTML, PDFs
	$(PY) -m jaxdeck build --pdf $(if $(JOBS),--jobs $(JOBS),) $(DECKS)

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | expand -t 14

# uv installs .venv exactly as uv.lock says, in seconds; it is itself fetched from PyPI into .uv/
# (no root). INSTALLER=pip does the same with plain pip from requirements.lock (slower).
$(UV):
	@$(PYTHON) -m pip install --quiet --disable-pip-version-check --no-warn-script-location --target .uv uv==$(UV_VERSION) 2>/dev/null \
	  || { rm -rf .uv && $(PYTHON) -m venv .uv/venv && .uv/venv/bin/pip install --quiet --disable-pip-version-check uv==$(UV_VERSION) \
	       && mkdir -p .uv/bin && ln -sf ../venv/bin/uv $@; }
	@test -x $@ || { echo "could not install uv $(UV_VERSION) from PyPI: try make INSTALLER=pip"; exit 1; }

ifeq ($(INSTALLER),pip)
$(PY_STAMP): pyproject.toml setup.py requirements.lock
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@echo '$(PYTHON)' > $(VENV)/.jaxdeck-python
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --require-hashes -r requirements.lock
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@touch $@
else
$(PY_STAMP): pyproject.toml setup.py uv.lock $(RESYNC)
	@$(MAKE) --no-print-directory -f $(firstword $(MAKEFILE_LIST)) $(UV)
	UV_PYTHON_DOWNLOADS=never $(UV) sync --quiet --frozen --python $(PYTHON) $(OWN_EXTRAS:%=--extra %) $(EXTRAS:%=--extra %)
	@echo '$(EXTRAS)' > $(VENV)/.jaxdeck-extras
	@echo '$(PYTHON)' > $(VENV)/.jaxdeck-python
	@$(PY) -c 'import sys; sys.version_info < (3, 12) and print("note: Python %d.%d gets JAX 0.10.2, the newest for it; for the newest JAX give make a Python 3.12 or newer (PYTHON=/path/to/python3.12)" % sys.version_info[:2])'
	@touch $@
endif

FORCE:

lock: $(UV) ## after editing pyproject.toml's dependencies: re-lock (uv.lock) and export requirements.lock
	$(UV) lock
	$(UV) export --quiet --frozen $(OWN_EXTRAS:%=--extra %) --no-emit-project --output-file requirements.lock

# npm ci installs reveal.js and KaTeX (decks load them) and, as an npm workspace, the live
# extension's dependencies and its builder (@jupyterlab/builder, TypeScript)
$(NPM_STAMP): package.json package-lock.json jaxdeck/live/extension/package.json
	@command -v npm >/dev/null || { echo "npm not found: install Node.js (sudo apt-get install nodejs npm) to fetch reveal.js, KaTeX and the live extension's builder"; exit 1; }
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

# tsc, then `jupyter labextension build` (in JupyterLab 4.6 an alias of jupyter-builder build),
# against the installed JupyterLab's core package metadata: offline, and its shared packages
# are the ones this JupyterLab provides. Its chatter is shown only when it fails.
$(LIVE_BUILT): $(LIVE_SOURCES) package-lock.json $(NPM_STAMP) $(PY_STAMP)
	@echo "building the live slideshow's extension"
	@node_modules/.bin/tsc -p $(LIVE_EXT)
	@core=$$($(PY) -c 'import jupyterlab, pathlib; print(pathlib.Path(jupyterlab.__file__).parent / "staging" / "package.json")') \
	  && out=$$($(VENV)/bin/jupyter-builder build $(LIVE_EXT) --core-package-file "$$core" 2>&1) \
	  || { echo "$$out"; exit 1; }
	@test -f $@ && touch $@

setup: $(PY_STAMP) $(COMPILED) $(NPM_STAMP) $(LIVE_BUILT) ## install Python and front-end dependencies, build the live extension

extension: $(LIVE_BUILT)

slides: setup ## convert + execute + export HTML: build/notebooks/NAME.ipynb, build/html/NAME.html [SINGLE=1: and build/single/NAME.html]
	$(PY) -m jaxdeck build $(if $(SINGLE),--self-contained,) $(if $(JOBS),--jobs $(JOBS),) $(DECKS)

pdf: setup ## slides PDF and handout PDF: build/pdf/NAME.pdf, build/pdf/NAME-handout.pdf [FROZEN=gpu/h100: with the outputs executed there] [HANDOUT_PER_PAGE=1|2|3] [PAPER=a4|letter]
	$(if $(FROZEN),$(PY) -m jaxdeck build --frozen $(FROZEN) --pdf,$(PY) -m jaxdeck pdf) $(if $(HANDOUT_PER_PAGE),--handout-per-page $(HANDOUT_PER_PAGE),) $(if $(PAPER),--paper $(PAPER),) $(DECKS)

article: setup ## the talk as a readable page, notes as prose: build/article/NAME.html [DECK=NAME] [PDF=1: and NAME.pdf]
	$(PY) -m jaxdeck build --article $(if $(PDF),--pdf,) $(if $(JOBS),--jobs $(JOBS),) $(DECKS)

site: setup ## every deck as one offline site to hand out or host: build/site/index.html, a page per talk, search, downloads [FROZEN=gpu/h100: with the outputs executed there]
	$(PY) -m jaxdeck site $(if $(FROZEN),--frozen $(FROZEN),) $(if $(JOBS),--jobs $(JOBS),) $(DECKS)

check: setup ## lint decks in a real browser: overflow, missing notes, slow cells, images
	$(PY) -m jaxdeck check $(DECKS)

present: setup ## Jupyter + RISE on 127.0.0.1 with a token: make present [DECK=NAME] [PORT=N] [DETACH=1]
	$(PY) -m jaxdeck present $(DECKS) --port $(PORT) $(if $(DETACH),--detach,)

present-stop: ## stop the present started with DETACH=1, and its kernels
	$(PY) -m jaxdeck present --stop

rehearse: setup ## a dress rehearsal of the live talk on this machine: make rehearse [DECK=NAME] [SIZE=1920x1080] [FAULTS=1] [ATTACH=1] [NO_BROWSER=1: the cells on the kernel alone, no Chromium]
	$(PY) -m jaxdeck rehearse $(DECKS) $(if $(SIZE),--size $(SIZE),) $(if $(FAULTS),--faults,) $(if $(ATTACH),--attach,) $(if $(NO_BROWSER),--no-browser,)

preview: setup ## the HTML deck on 127.0.0.1, rebuilt on save, reloaded at the same slide: make preview [DECK=NAME] [PORT=N]
	$(PY) -m jaxdeck preview $(DECKS) $(if $(filter command line environment,$(origin PORT)),--port $(PORT),)

# refused before anything is installed or built
ifneq ($(filter new,$(MAKECMDGOALS)),)
ifeq ($(DECK),)
$(error make new needs a name: make new DECK=NAME)
endif
endif
new: $(PY_STAMP) ## start a deck from the template: make new DECK=NAME writes slides/NAME.md (never over an existing one)
	$(PY) -m jaxdeck new $(DECK:slides/%=%)

bench: setup ## performance benchmarks (not part of make test): build/bench/*.json
	$(PY) -m jaxdeck bench $(DECKS)

# test and test-quick run their second pass whatever the first found, and exit with the worse status
test: setup ## the whole pytest suite: on every core (pytest-xdist), then the live keyboard tests alone [DECK=NAME: that deck's tests alone]
ifneq ($(DECK),)
	@test -f '$(DECKS)' || { echo "no deck $(DECKS): make test DECK=NAME takes the name of a deck in slides/"; exit 1; }
	JAXDECK_TEST_DECK='$(DECKS)' $(PY) -m pytest tests/test_decks.py --durations=5
else
	$(PY) -m pytest -n auto --dist loadgroup -m "not alone" --durations=20; first=$$?; \
	  $(PY) -m pytest -m alone --durations=20; second=$$?; \
	  exit $$(( first > second ? first : second ))
endif

# the edit loop's tier: every test that starts no kernel, server or browser, then one deck end to end
QUICK := not (heavy or browser or devices or versions or alone)
test-quick: setup ## after each change: the tests that need no kernel, browser or server, and example.md end to end (under 2 min)
	$(PY) -m pytest -q -n auto -m "$(QUICK)"; first=$$?; \
	  $(PY) -m pytest -q tests/test_decks.py -k example; second=$$?; \
	  exit $$(( first > second ? first : second ))

# compiled once, as part of setup: without it every kernel, CLI and test process compiles what it
# imports (PYTHONDONTWRITEBYTECODE set, or a read-only .venv, stops Python from keeping it): on a
# 2-core machine `import jax` takes 3 s instead of 1, so every deck's first cell, and a CLI
# rebuild after a prose edit 1.7 s more
$(COMPILED): $(PY_STAMP)
	@$(PY) -m compileall -q -j 0 $(VENV)/lib $(TOOLCHAIN)/jaxdeck $(TOOLCHAIN)/demos >/dev/null 2>&1 || true
	@touch $@

PYTHON_VERSION ?= 3.12
PLATFORM ?= manylinux_2_28_x86_64
wheelhouse: setup ## an offline install for a box with its own JAX/CUDA: build/wheelhouse/ [PYTHON_VERSION=3.12] [PLATFORM=manylinux_2_28_x86_64] [WITH=live,browser] [HAVE=box-freeze.txt]
	$(PY) -m jaxdeck.wheelhouse --python-version $(PYTHON_VERSION) --platform $(PLATFORM) $(if $(filter command line environment,$(origin WITH)),--with '$(WITH)',) $(if $(HAVE),--have '$(HAVE)',)

clean: ## remove build/ (artefacts and caches)
	rm -rf build
