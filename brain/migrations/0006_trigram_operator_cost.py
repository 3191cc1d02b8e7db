"""Tell the planner what pg_trgm's similarity operators really cost.

pg_trgm declares `<%` / `%>` / `%` at cost 1, like an integer comparison; each call actually builds
and compares two trigram sets (tens of microseconds on a memory's text). With cost 1 the planner
filtered a tenant's every row through `<%` (tenant btree + filter) instead of asking the trigram GIN
index: 55 ms instead of 2 ms for one word on a 2,000-row tenant (brain_bench scale). Cost 100 makes
the index the cheaper plan, as it is.
"""

import sys

from django.db import migrations, transaction
from django.db.utils import ProgrammingError

FUNCTIONS = (
    "word_similarity_op(text, text)",
    "word_similarity_commutator_op(text, text)",
    "similarity_op(text, text)",
)


def set_cost(cost: int):
    def apply(apps, schema_editor):
        # Altering an extension's functions needs its owner (a superuser on most managed services).
        # Without that right the migration still succeeds: only trigram plans stay slower.
        try:
            with transaction.atomic(using=schema_editor.connection.alias):
                with schema_editor.connection.cursor() as cursor:
                    for function in FUNCTIONS:
                        cursor.execute(f"ALTER FUNCTION {function} COST {cost}")
        except ProgrammingError as exc:
            sys.stderr.write(
                f"\n  Note: could not set pg_trgm operator costs ({exc.__class__.__name__}: {str(exc).strip()}); "
                "trigram searches will work but may not use their index. A database owner can run: "
                + "; ".join(f"ALTER FUNCTION {f} COST {cost}" for f in FUNCTIONS)
                + "\n"
            )

    return apply


class Migration(migrations.Migration):
    dependencies = [("brain", "0005_client_brain_recall_index")]

    operations = [migrations.RunPython(set_cost(100), set_cost(1))]
