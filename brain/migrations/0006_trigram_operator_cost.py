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
        # Altering an extension's functions needs its owner (a superuser on most managed services; the
        # embedded server sets the costs in template1 itself, config/embedded_db.py). Nothing is said when the
        # costs are already right; without the right to change them the migration still succeeds (only
        # trigram plans stay slower) and says what to run, as whom.
        connection = schema_editor.connection
        with connection.cursor() as cursor:
            wrong = functions_not_costing(cursor, cost)
        if not wrong:
            return
        try:
            with transaction.atomic(using=connection.alias):
                with connection.cursor() as cursor:
                    for function in wrong:
                        cursor.execute(f"ALTER FUNCTION {function} COST {cost}")
        except ProgrammingError:
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT current_user, current_database(), pg_get_userbyid(proowner) FROM pg_proc "
                    "WHERE oid = to_regprocedure(%s)",
                    [wrong[0]],
                )
                role, database, owner = cursor.fetchone()
            why = "until then trigram search works but may not use its index" if cost > 1 else "undoing 0006"
            sys.stderr.write(
                f"\n  pg_trgm's similarity operators should cost {cost} ({why}); this role ({role}) may not change "
                f"them. As {owner}, in database {database}, run: "
                + " ".join(f"ALTER FUNCTION {f} COST {cost};" for f in wrong)
                + "\n"
            )

    return apply


def functions_not_costing(cursor, cost: int) -> list[str]:
    """FUNCTIONS whose declared cost is not `cost`, in FUNCTIONS' order."""
    cursor.execute(
        "SELECT f FROM unnest(%s::text[]) WITH ORDINALITY AS u(f, n) "
        "JOIN pg_proc p ON p.oid = to_regprocedure(f) WHERE p.procost <> %s ORDER BY n",
        [list(FUNCTIONS), cost],
    )
    return [row[0] for row in cursor.fetchall()]


class Migration(migrations.Migration):
    dependencies = [("brain", "0005_client_brain_recall_index")]

    operations = [migrations.RunPython(set_cost(100), set_cost(1))]
