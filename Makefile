# The two quick-start commands: `make run` and `make test`. Both set everything up on a fresh machine.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: install run test lint worker stop check-deploy bench clean-db

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

# torch first, pinned: the CPU build of 2.13.0 lies on this machine's disk; an unpinned torch would
# pull a multi-GB CUDA build. Then the project with its embeddings and dev extras, and the agents' Python
# client (clients/python, its own package), which the tests drive against the live server.
$(STAMP): pyproject.toml clients/python/pyproject.toml | $(PY)
	$(PIP) install --quiet "torch==2.13.0"
	$(PIP) install --quiet -e ".[embeddings,dev]"
	$(PIP) install --quiet -e clients/python
	@touch $(STAMP)

install: $(STAMP)

run: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py seed_demo
	@echo "Open http://$(HOST):$(PORT)/ and sign in with one of the users printed above."
	$(PY) manage.py runserver $(HOST):$(PORT)

test: install
	bash scripts/ensure_browser.sh
	$(PY) -m pytest

lint: install
	$(VENV)/bin/ruff check .

worker: install
	$(VENV)/bin/celery -A config worker --loglevel=info --concurrency=2

stop:
	$(PY) manage.py embedded_db stop

check-deploy: install
	DJANGO_SETTINGS_MODULE=config.settings.production DJANGO_SECRET_KEY=$$($(PY) -c "import secrets;print(secrets.token_urlsafe(50))") \
		$(PY) manage.py check --deploy --fail-level WARNING
