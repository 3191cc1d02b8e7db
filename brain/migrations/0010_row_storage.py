"""Keep a memory's whole row on its heap page: search reads it without TOAST lookups.

With the embedding in the row (0009), a typical memory row is about 2.3 kB, over PostgreSQL's default 2 kB
toasting threshold, so the toaster moved the next largest value, the `search_vector`, out of line: a
full-text search that scored ten thousand matching rows of a 100k-row tenant then made about twelve
buffer reads per row (brain_bench scale: 545 ms). `toast_tuple_target = 4080` leaves rows under 4 kB
alone; `search_vector` is MAIN, so when a long text makes a row bigger, the text leaves the row first.

Like 0009, this applies to rows written from now on; existing rows keep their layout until the table is
rewritten.
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("brain", "0009_embedding_inline_storage")]

    operations = [
        migrations.RunSQL(
            "ALTER TABLE brain_memory SET (toast_tuple_target = 4080);"
            " ALTER TABLE brain_memory ALTER COLUMN search_vector SET STORAGE MAIN",
            "ALTER TABLE brain_memory RESET (toast_tuple_target);"
            " ALTER TABLE brain_memory ALTER COLUMN search_vector SET STORAGE EXTENDED",
        )
    ]
