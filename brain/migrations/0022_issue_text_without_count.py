"""A Client Brain issue's text no longer carries its count ("... (seen 1 times)"): reinforcement counts on the
row and in its payload (issue 27), and a text that changed with every sighting would leave its vector stale.
Stored texts lose the suffix; their payloads take the row's frequency. The vectors are left as they are: the
suffix moved an embedding by little, and `manage.py brain_reembed` re-embeds on demand."""

from django.db import migrations

FORWARD = r"""
UPDATE brain_memory
SET text = regexp_replace(text, '\s*\(seen \d+ times\)$', ''),
    payload = CASE WHEN jsonb_typeof(payload) = 'object'
                   THEN jsonb_set(payload, '{frequency}', to_jsonb(frequency)) ELSE payload END
WHERE type = 'issues' AND text ~ '\(seen \d+ times\)$'
"""


class Migration(migrations.Migration):
    dependencies = [("brain", "0021_verdictspend_plural")]

    operations = [migrations.RunSQL(FORWARD, reverse_sql=migrations.RunSQL.noop)]
