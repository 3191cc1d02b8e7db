"""The Celery app. Tasks are enqueued only after the surrounding transaction commits."""

import os
from collections.abc import Callable
from typing import Any

import kombu.pools
from celery import Celery
from celery.signals import task_postrun, task_prerun

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")

app = Celery("brain")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@task_prerun.connect(dispatch_uid="brain.database_connections.prerun")
@task_postrun.connect(dispatch_uid="brain.database_connections.postrun")
def close_old_database_connections(sender=None, task=None, **extra) -> None:
    """Around each task on a worker, what Django does around each request: a connection past CONN_MAX_AGE,
    or left unusable (an error, a lost server: the health check on its next use), is closed, and the next
    query opens a new one. Workers keep their connections across tasks (CELERY_DB_REUSE_MAX). An eager task
    runs inside a request, whose connection is the request's business."""
    from django.db import close_old_connections

    if not getattr((task or sender).request, "is_eager", False):
        close_old_connections()


def task_named(name: str) -> Any:
    """The registered task called `name` (its `@app.task(name=...)`).

    A service sends its app's task by name, as a view reverses a URL by name: the tasks module calls the
    services, so a service that imported it would close an import circle. Every app's tasks module is
    registered the first time a name is missing (Celery's autodiscovery, which a worker runs at start-up).
    """
    if name not in app.tasks:
        app.loader.import_default_modules()
    return app.tasks[name]


def enqueue_after_commit(task_name: str, *args: Any, **kwargs: Any) -> None:
    """Send the task called `task_name` once the current transaction commits (at once outside a transaction).

    Workers re-read what they need by id, so they must never see a row that may still roll back.
    """
    from django.db import transaction

    transaction.on_commit(lambda: task_named(task_name).delay(*args, **kwargs))


@app.task(name="config.ping")
def ping() -> dict[str, Any]:
    """Round-trip check used by /healthz and the worker tests: proves the worker reaches the database, and
    names the database connection it used (`backend_pid`) and the tenant that connection is set to (none
    outside a tenant's task)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT current_database(), pg_backend_pid(), current_setting('brain.tenant_id', true)"
        )
        database, backend_pid, tenant_setting = cursor.fetchone()
    return {
        "pong": True,
        "database": database,
        "pid": os.getpid(),
        "backend_pid": backend_pid,
        "tenant_setting": tenant_setting or "",
    }


def use_broker(broker_url: str | None, result_backend: str | None = None) -> None:
    """Point this process's app at another broker (or back to eager with None), dropping pooled connections.

    For tests and benchmarks that start real workers from a process whose settings were eager.
    """
    app.conf.task_always_eager = not broker_url
    app.conf.broker_url = broker_url or None
    app.conf.result_backend = result_backend
    # kombu keeps connection pools in a process-wide registry: reset it, or the next use of the closed
    # pool fails with "Acquire on closed pool".
    kombu.pools.reset()
    app._pool = None
    app.amqp._producer_pool = None
    app._backend_cache = None
    app._local.__dict__.pop("backend", None)


def celery_is_eager() -> bool:
    return bool(app.conf.task_always_eager)


__all__: list[str | Callable] = [
    "app",
    "enqueue_after_commit",
    "task_named",
    "ping",
    "celery_is_eager",
    "use_broker",
]
