"""Keep embeddings inside the table row instead of the TOAST table.

pgvector stores `vector` with EXTERNAL storage: a row over about 2 kB (a 384-dimension embedding is 1,540
bytes, plus the text and its tsvector) has its embedding moved out of line, so every exact distance and
every score read one more index lookup and page in the TOAST table. With 1M rows the TOAST table held
1.3 GB and an exact scan of a 10k-row tenant took about 100 ms (brain_bench scale). PLAIN keeps the
embedding in the row (never compressed: a float vector does not compress); the text and tsvector can
still move out, so a row always fits its page.

Only rows written from now on are stored this way; an existing row's embedding moves into the row when
the row is next written (`manage.py brain_reembed --all` rewrites every embedding).
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("brain", "0008_memory_scope_state")]

    operations = [
        migrations.RunSQL(
            "ALTER TABLE brain_memory ALTER COLUMN embedding SET STORAGE PLAIN",
            "ALTER TABLE brain_memory ALTER COLUMN embedding SET STORAGE EXTERNAL",
        )
    ]
