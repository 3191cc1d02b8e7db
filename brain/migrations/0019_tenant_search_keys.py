"""Search keys that carry the tenant (issue 29, item 9: the timing channel between tenants).

A GIN index led by the tenant (btree_gin) still shares each lexeme's and each trigram's posting list between
tenants: a tenant's search read another tenant's postings of its word, and the planner, reading the table's
statistics, chose a slower plan for a word some tenant held in most rows. A search for a word another tenant
used a lot took several times longer: one bit per word (`brain_bench timing-channel`, README).

Two generated columns hold each row's search keys prefixed with its tenant ("12:refund", "12: re"): the
lexemes of `search_vector`, and pg_trgm's trigrams of key and text. Their GIN indexes replace
`memory_tenant_fts` for the lexical tiers (brain/search/sql.py builds the queries with the same prefix), so
every posting list a search reads is its own tenant's. No statistics are gathered on them: the planner
estimates their conditions from the query alone, never from other tenants' rows. `memory_tenant_trgm` stays for
the formation judge's `%`.

On existing data: the two columns are added in one ALTER TABLE (one rewrite of the table, each row's keys
computed), then the indexes are built. A lexeme over PostgreSQL's 2,046 bytes with its prefix is left out
of the keys (such a word cannot be searched for by full text any more), and so are a row's trigrams past its
first 20,000 (a text of tens of kilobytes; tsvector holds at most 1 MB).
"""

from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVectorField
from django.db import migrations, models
from django.db.models import F, Func

# The generated columns call these, so they are IMMUTABLE (and are: a row's keys depend on its values only).
# Their search_path is the migration's, pinned: pg_trgm's show_trgm is found where the extension was installed,
# also when the table is restored from a dump.
FUNCTIONS_SQL = r"""
CREATE OR REPLACE FUNCTION brain_tenant_lexemes(tenant bigint, key text, body text) RETURNS tsvector
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET search_path FROM CURRENT AS $$
SELECT array_to_tsvector(ARRAY(
    SELECT tenant::text || ':' || lexeme
    FROM unnest(tsvector_to_array(to_tsvector('english', key) || to_tsvector('english', body))) lexeme
    WHERE octet_length(lexeme) + octet_length(tenant::text) < 2046))
$$;
CREATE OR REPLACE FUNCTION brain_tenant_trigrams(tenant bigint, key text, body text) RETURNS tsvector
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET search_path FROM CURRENT AS $$
SELECT array_to_tsvector(ARRAY(
    SELECT tenant::text || ':' || trigram FROM unnest(show_trgm(key || ' ' || body)) trigram LIMIT 20000))
$$;
"""

DROP_FUNCTIONS_SQL = """
DROP FUNCTION IF EXISTS brain_tenant_lexemes(bigint, text, text);
DROP FUNCTION IF EXISTS brain_tenant_trigrams(bigint, text, text);
"""

ADD_COLUMNS_SQL = """
ALTER TABLE brain_memory
    ADD COLUMN tenant_lexemes tsvector GENERATED ALWAYS AS (brain_tenant_lexemes(tenant_id, key, text)) STORED,
    ADD COLUMN tenant_trigrams tsvector GENERATED ALWAYS AS (brain_tenant_trigrams(tenant_id, key, text)) STORED;
ALTER TABLE brain_memory
    ALTER COLUMN tenant_lexemes SET STATISTICS 0,
    ALTER COLUMN tenant_trigrams SET STATISTICS 0;
"""

DROP_COLUMNS_SQL = "ALTER TABLE brain_memory DROP COLUMN tenant_lexemes, DROP COLUMN tenant_trigrams"


def _generated(function: str) -> models.GeneratedField:
    return models.GeneratedField(
        db_persist=True,
        expression=Func(F("tenant"), F("key"), F("text"), function=function),
        output_field=SearchVectorField(),
    )


class Migration(migrations.Migration):
    dependencies = [("brain", "0018_verdict_spend")]

    operations = [
        migrations.RunSQL(FUNCTIONS_SQL, reverse_sql=DROP_FUNCTIONS_SQL),
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunSQL(ADD_COLUMNS_SQL, reverse_sql=DROP_COLUMNS_SQL)],
            state_operations=[
                migrations.AddField("memory", "tenant_lexemes", _generated("brain_tenant_lexemes")),
                migrations.AddField("memory", "tenant_trigrams", _generated("brain_tenant_trigrams")),
            ],
        ),
        migrations.RemoveIndex(model_name="memory", name="memory_tenant_fts"),
        migrations.AddIndex(
            model_name="memory", index=GinIndex(fields=["tenant_lexemes"], name="memory_tenant_lexemes")
        ),
        migrations.AddIndex(
            model_name="memory", index=GinIndex(fields=["tenant_trigrams"], name="memory_tenant_trigrams")
        ),
    ]
