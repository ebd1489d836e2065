# The two set-up commands of the README: `make run` and `make test`.
# Both create .venv if needed and install the project into it; nothing is installed globally.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

# The Python the venv is made with: the system's own (/usr/bin/python3) where it is 3.11 or
# newer and can make a venv, else the first python3 on the PATH; `make PYTHON=...` for another.
# A distribution's CPython is built with profile-guided and link-time optimisation, which a
# version manager's default build (pyenv's) is not: the same code runs some 12 % faster on it
# (docs/benchmarks.md, "The interpreter").
SYSTEM_PYTHON := /usr/bin/python3
PYTHON ?= $(shell $(SYSTEM_PYTHON) -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 11))' \
  >/dev/null 2>&1 && echo $(SYSTEM_PYTHON) || echo python3)

.PHONY: run test lint typecheck format bench clean browser messages compile

# The interface's gettext catalogues (src/sheli/i18n.py): each .po compiled to its .mo.
PO_FILES := $(wildcard src/sheli/locale/*/LC_MESSAGES/sheli.po)
MO_FILES := $(PO_FILES:.po=.mo)

# Debian's chromium (the browser tests and PDF cue sheets) and a CJK font to draw the text with.
# A browser download of Playwright's own fails on this kind of machine: we use the system one.
APT_PACKAGES := chromium fonts-noto-cjk
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	$(MAKE) --no-print-directory compile
	touch $(STAMP)

%.mo: %.po $(STAMP)
	$(VENV)/bin/pybabel compile -i $< -o $@

# after changing the interface strings: extract them and update each language's .po
messages: $(STAMP)
	$(VENV)/bin/pybabel extract -F babel.cfg -k tr -k N_ -k ngettext:1,2 --no-location \
	  --sort-output --no-wrap --project sheli -o src/sheli/locale/sheli.pot .
	$(VENV)/bin/pybabel update -i src/sheli/locale/sheli.pot -d src/sheli/locale -D sheli --no-wrap

# The package's byte code, written once: Python reads a .pyc even where it may not write one
# (PYTHONDONTWRITEBYTECODE), and compiles a source again in memory only when the source is
# newer than it, so an edited file is never run stale (docs/benchmarks.md, start-up).
compile:
	$(PY) -m compileall -q src

run: $(STAMP) $(MO_FILES) compile
	$(VENV)/bin/sheli run xiangshe

# Every test, on all CPUs; tests that share a browser are grouped (xdist_group) so that one
# worker runs them (README, "Working on sheli: tests", has the quick loop). The test modules
# pytest rewrites are kept as byte code even under PYTHONDONTWRITEBYTECODE (tests/conftest.py).
test: $(STAMP) $(MO_FILES) browser lint
	$(VENV)/bin/pytest -n auto --dist loadgroup

browser:
	@if ! command -v chromium >/dev/null 2>&1 || ! fc-list :lang=zh 2>/dev/null | grep -q .; then \
	  echo "installing $(APT_PACKAGES) with apt-get"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $(APT_PACKAGES) >/dev/null; \
	fi

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-logo
	$(VENV)/bin/mypy

# mypy over src/sheli ([tool.mypy] in pyproject.toml) alone; `make lint` runs it too
typecheck: $(STAMP)
	$(VENV)/bin/mypy

format: $(STAMP)
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

bench: $(STAMP)
	$(PY) bench/run_bench.py

clean:
	rm -rf $(VENV) build src/*.egg-info .pytest_cache .ruff_cache .import_linter_cache
