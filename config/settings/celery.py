"""Celery (decision 8): without CELERY_BROKER_URL tasks run eagerly in-process; with one, on workers."""

from .env import env_int, env_str

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
# Celery's Django fixup closes the database connection before and after every task unless this is set: each
# task then opened a new PostgreSQL connection (a forked backend, authentication, cold catalog and plan
# caches). Connections are kept across a worker's tasks and closed as Django closes a request's
# (`config.celery`: past CONN_MAX_AGE or unusable, checked around every task); the fixup still closes them
# after this many tasks.
CELERY_DB_REUSE_MAX = 1000
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_TIMEOUT = 3
# A broker that is down must cost a web request seconds, not minutes: a connection attempt gives up after 3 s
# and a publish is retried twice (the learning attempt stays queued for the requeue, issue 15 finding 3).
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 2,
    "interval_start": 0,
    "interval_step": 0.5,
    "interval_max": 1,
}
# The Redis result backend otherwise retries a lost connection 20 times a second apart (19 s) and then raises
# RuntimeError; tasks whose outcome lives in the database (learning) ignore their result altogether.
CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = 3
CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {
    "retry_policy": {"max_retries": 2, "interval_start": 0, "interval_step": 0.5, "interval_max": 1}
}

# --- Leases: workers recover by themselves (issue 15 finding 4) ---------------------------------------------
# A running learning attempt holds a lease this long (seconds): longer than one try takes (an LLM call of at
# most 30 s, promote() of its candidates). When a killed worker leaves it running past its lease, the requeue
# task sends it again; a try that is still alive renews nothing and must finish inside it.
BRAIN_LEARNING_LEASE = env_int("BRAIN_LEARNING_LEASE", 300)
# A queued attempt whose message was sent may wait this long for a worker before it is sent again (a message
# lost with a broker, or a long backlog: a second message for the same attempt is then a no-op).
BRAIN_LEARNING_QUEUE_LEASE = env_int("BRAIN_LEARNING_QUEUE_LEASE", 900)
# How often beat runs the requeue task (seconds).
BRAIN_LEARNING_REQUEUE_EVERY = env_int("BRAIN_LEARNING_REQUEUE_EVERY", 60)
# Redis redelivers a message not acknowledged within the visibility timeout (default: one hour, which left a
# killed worker's attempts running that long). Tasks acknowledge late, so it must outlast the longest task,
# retry countdowns (ETA messages are held unacknowledged) included: twice the learning lease. The requeue task
# usually re-sends first; the redelivered message then finds its attempt finished and does nothing.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": 2 * BRAIN_LEARNING_LEASE,
    "socket_connect_timeout": 3,
}
# How often beat adds recorded Client Brain activity to the counters (seconds; brain/activity.py). Reads of the
# counts drain their tenant first, so this bounds only the pending rows, and the lag of pages read on a replica.
BRAIN_ACTIVITY_DRAIN_EVERY = env_int("BRAIN_ACTIVITY_DRAIN_EVERY", 10)
# Periodic work (`celery -A config beat`): action runs whose "evaluate outcomes after" delay has passed are
# judged on the next pass, so an outcome is judged at most this many seconds after it matured.
CELERY_BEAT_SCHEDULE = {
    # Each large tenant's vectors get an HNSW graph of their own (brain.search.graphs).
    "sync-memory-graphs": {
        "task": "brain.sync_memory_graphs",
        "schedule": 3600.0,
        "options": {"expires": 3600.0},
    },
    "drain-activity": {
        "task": "brain.drain_activity",
        "schedule": float(BRAIN_ACTIVITY_DRAIN_EVERY),
        "options": {"expires": float(BRAIN_ACTIVITY_DRAIN_EVERY)},  # a backlog of passes is pointless
    },
    "evaluate-matured-outcomes": {"task": "intelligence.evaluate_matured_outcomes", "schedule": 900.0},
    # Learning attempts whose lease ran out (a killed worker) or that a broker outage left queued.
    "requeue-learning-attempts": {
        "task": "tickets.requeue_learning_attempts",
        "schedule": float(BRAIN_LEARNING_REQUEUE_EVERY),
        "options": {"expires": float(BRAIN_LEARNING_REQUEUE_EVERY)},  # a backlog of passes is pointless
    },
}
