"""Celery (decision 8): without CELERY_BROKER_URL tasks run eagerly in-process; with one, on workers."""

from .env import env_str

CELERY_BROKER_URL = env_str("CELERY_BROKER_URL")
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_RESULT_BACKEND = (
    env_str(
        "CELERY_RESULT_BACKEND",
        CELERY_BROKER_URL
        if CELERY_BROKER_URL.startswith("redis")
        else ("rpc://" if CELERY_BROKER_URL else ""),
    )
    or None
)
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_TIMEOUT = 3
# Periodic work (`celery -A config beat`): action runs whose "evaluate outcomes after" delay has passed are
# judged on the next pass, so an outcome is judged at most this many seconds after it matured.
CELERY_BEAT_SCHEDULE = {
    "evaluate-matured-outcomes": {"task": "intelligence.evaluate_matured_outcomes", "schedule": 900.0},
}
