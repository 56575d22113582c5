# The two commands of the README: `make run` and `make test`. Both create the virtualenv
# and install the project when needed, so they work from a fresh clone.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# Two stamps: the service alone (make run) and the service plus the development tools and the
# SDK (make test), so that `make run` installs only what the service needs.
RUN_STAMP := $(VENV)/.run-installed-stamp
DEV_STAMP := $(VENV)/.dev-installed-stamp
# Celery beat's schedule state lives beside the virtualenv, not in the repository root.
BEAT_SCHEDULE := $(VENV)/celerybeat-schedule
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test install install-run lint typecheck schema pytest bench clean worker beat unasync env

C_SOURCES := games/engine/_solver_c.c games/engine/_variant_c.c games/engine/_search_common.h

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed (set PYTHON=...)")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# setup.py builds the compiled solvers (games/engine/_solver_c.c, _variant_c.c) in place; an
# edit of one installs (so builds) again. Without a C compiler the install goes on without it.
$(RUN_STAMP): $(BIN)/python pyproject.toml setup.py $(C_SOURCES)
	$(BIN)/python -m pip install --quiet -e .
	@touch $(RUN_STAMP)

$(DEV_STAMP): $(RUN_STAMP) pyproject.toml setup.py $(C_SOURCES) client_sdk/pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[dev]' -e './client_sdk[cli]'
	@touch $(DEV_STAMP)

install: $(DEV_STAMP)
install-run: $(RUN_STAMP)

# The embedded default: SQLite in the project, no Redis, DEBUG on for a local server. One
# process serves everything, live streams included: uvicorn (ASGI), since runserver (WSGI)
# cannot hold a stream open; it restarts when a Python file of the project changes.
# --no-proxy-headers: uvicorn would otherwise take X-Forwarded-For from 127.0.0.1 as the client's
# address, and any local client would pick a fresh rate limit per request; the app reads that
# header itself, by NUM_PROXIES (infrastructure/client_ip.py), the one rule in every process.
RELOAD_DIRS := $(foreach dir,scorpion_site infrastructure games accounts stats social achievements players staff web,--reload-dir $(dir))
# Without beat, today's and tomorrow's daily deals are certified before serving (a few seconds
# the first time, then a lookup), so the daily shows its band before its first play; the deals
# are never printed. A failure only warns: the deal is then certified at its first play.
run: install-run
	DEBUG=$${DEBUG:-true} $(BIN)/python manage.py migrate --noinput
	DEBUG=$${DEBUG:-true} $(BIN)/python manage.py daily_deals_prepare \
		|| echo "make run: serving anyway; each daily deal is certified at its first play" >&2
	DEBUG=$${DEBUG:-true} $(BIN)/uvicorn scorpion_site.asgi:application --host $(HOST) --port $(PORT) --no-proxy-headers --timeout-graceful-shutdown 1 --reload $(RELOAD_DIRS)

lint: install
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/ruff format --check .
	$(BIN)/python client_sdk/scripts/unasync.py --check

# The SDK's sync client is generated from its async one.
unasync:
	$(PYTHON) client_sdk/scripts/unasync.py

typecheck: install
	$(BIN)/mypy

schema: install
	DEBUG=true $(BIN)/python manage.py spectacular --validate --fail-on-warn --file /dev/null

# pytest-xdist: PYTEST_WORKERS processes, each with a test database of
# its own (pytest-django's _gwN suffix) and the Redis database REDIS_URL names plus its index
# (scorpion_site/test_settings.py): whoever sets REDIS_URL hands out that number and the next
# PYTEST_WORKERS-1 (.ci/run claims such a block). A file's tests stay on one worker (loadfile),
# so its module fixtures (a browser, a process stack) start once. PYTEST_WORKERS=0: one process.
# SCORPION_LONG_DIFFERENTIAL=1 make test: the long differential runs in full (tests/long.py).
# Four on this 2-core machine: the suite mostly waits (browsers, process stacks, the network),
# so two workers kept the cores 37% busy and took 13.4 min of pytest; four took 9.2 min at 60%;
# six took longer (9.8 min) and made the timing-sensitive browser tests flakier (2026-12-05,
# `.ci/run` on clean clones, docs/benchmarks.md "The suite").
PYTEST_WORKERS ?= 4

pytest: install
	$(BIN)/python -m pytest $(if $(filter 0,$(PYTEST_WORKERS)),,-n $(PYTEST_WORKERS) --dist loadfile)

test: lint typecheck schema pytest

bench: install
	$(BIN)/python bench/engine.py

# The worker and beat need a broker; like `make run` they default to DEBUG on (a laptop).
# One worker consumes both queues here (the default one and `hints`, infrastructure/queues.py),
# so a developer runs one process; docker-compose.yml runs a worker per queue.
worker: install-run
	@test -n "$$REDIS_URL" || { echo "make worker needs REDIS_URL (e.g. REDIS_URL=redis://127.0.0.1:6379/0)" >&2; exit 2; }
	DEBUG=$${DEBUG:-true} $(BIN)/celery -A scorpion_site worker --loglevel=INFO --queues=celery,hints

beat: install-run
	@test -n "$$REDIS_URL" || { echo "make beat needs REDIS_URL (e.g. REDIS_URL=redis://127.0.0.1:6379/0)" >&2; exit 2; }
	DEBUG=$${DEBUG:-true} $(BIN)/celery -A scorpion_site beat --loglevel=INFO --schedule=$(BEAT_SCHEDULE)

# Docker Compose's .env from .env.example, with fresh SECRET_KEY and DAILY_DEAL_SECRET (an
# existing .env is left as it is): `make env && docker compose up` (docs/deployment.md).
env:
	$(PYTHON) deploy/make_env.py

# Everything that `make run`, `make test` and `make beat` leave behind: the virtualenv, tool
# caches, build output, the embedded SQLite database and beat's schedule.
clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis .import_linter_cache staticfiles artifacts \
		build dist *.egg-info client_sdk/build client_sdk/dist client_sdk/*.egg-info \
		db.sqlite3 db.sqlite3-journal db.sqlite3-wal db.sqlite3-shm celerybeat-schedule* \
		games/engine/_solver_c.*.so games/engine/_variant_c.*.so
	find . -name __pycache__ -type d -prune -not -path './.git/*' -exec rm -rf {} +
