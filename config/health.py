"""/healthz: is the database reachable, and is the broker (or are tasks eager)?"""

from django.db import connection
from django.http import JsonResponse

from .celery import app, celery_is_eager


def database_status() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return "ok"
    except Exception as exc:  # noqa: BLE001 - any failure is reported, not raised
        return f"error: {exc.__class__.__name__}: {exc}".strip()[:300]


def broker_status() -> str:
    if celery_is_eager():
        return "eager (no CELERY_BROKER_URL: tasks run in-process)"
    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
        return "ok"
    except Exception as exc:  # noqa: BLE001
        return f"error: {exc.__class__.__name__}: {exc}"[:300]


def healthz(request):
    database, broker = database_status(), broker_status()
    healthy = database == "ok" and not broker.startswith("error")
    return JsonResponse(
        {"status": "ok" if healthy else "degraded", "database": database, "broker": broker},
        status=200 if healthy else 503,
    )
