"""The PostgreSQL extensions the Brain needs, and a clear error when a server lacks one."""

from django.core.management.base import CommandError

REQUIRED_EXTENSIONS = ("vector", "pg_trgm", "btree_gin")

INSTALL_HINT = (
    "The Brain needs a PostgreSQL with the {missing} extension(s) available. Leave DATABASE_URL unset to use the "
    "embedded PostgreSQL 18 (pgvector and contrib included), or point DATABASE_URL at a server that has them "
    "(pgvector: https://github.com/pgvector/pgvector; pg_trgm and btree_gin ship with PostgreSQL's contrib)."
)


def missing_extensions(cursor) -> list[str]:
    cursor.execute(
        "SELECT name FROM pg_available_extensions WHERE name = ANY(%s)", [list(REQUIRED_EXTENSIONS)]
    )
    available = {row[0] for row in cursor.fetchall()}
    return [name for name in REQUIRED_EXTENSIONS if name not in available]


def enable_extensions(cursor) -> None:
    """CREATE EXTENSION for each; raises CommandError (printed without a traceback) naming what is missing."""
    missing = missing_extensions(cursor)
    if missing:
        raise CommandError(INSTALL_HINT.format(missing=", ".join(missing)))
    for name in REQUIRED_EXTENSIONS:
        cursor.execute(f'CREATE EXTENSION IF NOT EXISTS "{name}"')
