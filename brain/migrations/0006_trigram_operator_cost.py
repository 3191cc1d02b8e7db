"""Tell the planner what pg_trgm's similarity operators really cost.

pg_trgm declares `<%` / `%>` / `%` at cost 1, like an integer comparison; each call actually builds
and compares two trigram sets (tens of microseconds on a memory's text). With cost 1 the planner
filtered a tenant's every row through `<%` (tenant btree + filter) instead of asking the trigram GIN
index: 55 ms instead of 2 ms for one word on a 2,000-row tenant (brain_bench scale). Cost 100 makes
the index the cheaper plan, as it is.
"""

from django.db import migrations

FUNCTIONS = (
    "word_similarity_op(text, text)",
    "word_similarity_commutator_op(text, text)",
    "similarity_op(text, text)",
)


class Migration(migrations.Migration):
    dependencies = [("brain", "0005_client_brain_recall_index")]

    operations = [
        migrations.RunSQL(
            sql=[f"ALTER FUNCTION {f} COST 100" for f in FUNCTIONS],
            reverse_sql=[f"ALTER FUNCTION {f} COST 1" for f in FUNCTIONS],
        )
    ]
