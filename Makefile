# The two commands of the README: `make run` and `make test`. Both create the virtualenv
# and install the project when needed, so they work from a fresh clone.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test install lint typecheck schema pytest bench clean worker beat

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed (set PYTHON=...)")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml client_sdk/pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[dev]' -e ./client_sdk
	@touch $(STAMP)

install: $(STAMP)

# The embedded default: SQLite in the project, no Redis, DEBUG on for a local server.
run: install
	DEBUG=$${DEBUG:-true} $(BIN)/python manage.py migrate --noinput
	DEBUG=$${DEBUG:-true} $(BIN)/python manage.py runserver $(HOST):$(PORT)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: install
	$(BIN)/mypy

schema: install
	DEBUG=true $(BIN)/python manage.py spectacular --validate --fail-on-warn --file /dev/null

pytest: install
	$(BIN)/python -m pytest

test: lint typecheck schema pytest

bench: install
	$(BIN)/python bench/engine.py

worker: install
	$(BIN)/celery -A scorpion_site worker --loglevel=INFO

beat: install
	$(BIN)/celery -A scorpion_site beat --loglevel=INFO

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis staticfiles
