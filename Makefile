# The two quick-start commands: `make run` and `make test`. Both set everything up on a fresh machine.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: help install run test lint worker stop check-deploy demo-key reset-demo
.DEFAULT_GOAL := help

help: ## List the targets
	@echo "The Brain: make <target>"
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([a-z-]+):.*## (.*)$$/\1|\2/' | awk -F'|' '{printf "  %-14s %s\n", $$1, $$2}'

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

# torch first, pinned: the CPU build of 2.13.0 lies on this machine's disk; an unpinned torch would
# pull a multi-GB CUDA build. Then the project with its embeddings and dev extras, and the agents' Python
# client (clients/python, its own package), which the tests drive against the live server. Last, the
# local MiniLM weights exported to ONNX for the default embedder (offline; BRAIN_ONNX_DIR, var/onnx).
$(STAMP): pyproject.toml clients/python/pyproject.toml | $(PY)
	$(PIP) install --quiet "torch==2.13.0"
	$(PIP) install --quiet -e ".[embeddings,dev]"
	$(PIP) install --quiet -e clients/python
	$(PY) manage.py brain_onnx_export
	@touch $(STAMP)

install: $(STAMP) ## Create .venv and install the project (once; again when pyproject.toml changes)

run: install ## Migrate, seed the demo (prints the users, the staff account and new API keys) and serve
	$(PY) manage.py migrate --noinput
	$(PY) manage.py seed_demo
	@echo "Open http://$(HOST):$(PORT)/ and sign in with one of the users printed above; staff: http://$(HOST):$(PORT)/admin/."
	$(PY) manage.py runserver $(HOST):$(PORT)

test: install ## Run the whole test suite (installs Debian's Chromium and PgBouncer for their tests when root)
	bash scripts/ensure_browser.sh
	bash scripts/ensure_pgbouncer.sh
	$(PY) -m pytest

lint: install ## ruff check and ruff format --check
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

worker: install ## A Celery worker (with CELERY_BROKER_URL set; without it tasks run in-process)
	$(VENV)/bin/celery -A config worker --loglevel=info --concurrency=2

stop: ## Stop the embedded PostgreSQL server
	$(PY) manage.py embedded_db stop

check-deploy: install ## Django's deployment checks against the production settings
	DJANGO_SETTINGS_MODULE=config.settings.production DJANGO_SECRET_KEY=$$($(PY) -c "import secrets;print(secrets.token_urlsafe(50))") \
		$(PY) manage.py check --deploy --fail-level WARNING

demo-key: install ## Print a fresh demo API key per demo tenant (keys are stored hashed: an old one cannot be shown again)
	$(PY) manage.py seed_demo --new-keys

reset-demo: install ## Wipe the database (every tenant, user and memory) and seed the demo again
	$(PY) manage.py flush --noinput
	$(PY) manage.py seed_demo
