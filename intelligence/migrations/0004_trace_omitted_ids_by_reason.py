"""A trace's `omitted` becomes memory ids per reason (it listed one detailed object per omission).

Existing traces are rewritten in place: the same omissions, in the same order within each reason.
"""

from django.db import migrations, models

TO_IDS_BY_REASON = """
UPDATE intelligence_contexttrace t
SET omitted = (
    SELECT coalesce(jsonb_object_agg(reason, ids), '{}'::jsonb)
    FROM (
        SELECT e->>'reason' AS reason, jsonb_agg((e->>'memory_id')::bigint ORDER BY ord) AS ids
        FROM jsonb_array_elements(t.omitted) WITH ORDINALITY AS x(e, ord)
        GROUP BY e->>'reason'
    ) grouped
)
WHERE jsonb_typeof(t.omitted) = 'array'
"""

TO_DETAIL_LIST = """
UPDATE intelligence_contexttrace t
SET omitted = (
    SELECT coalesce(jsonb_agg(jsonb_build_object('memory_id', m.value, 'reason', r.reason)), '[]'::jsonb)
    FROM jsonb_each(t.omitted) AS r(reason, ids), jsonb_array_elements(r.ids) AS m(value)
)
WHERE jsonb_typeof(t.omitted) = 'object'
"""


class Migration(migrations.Migration):
    dependencies = [
        ("intelligence", "0003_trace_tenant_index_is_the_composite"),
    ]

    operations = [
        migrations.AlterField(
            model_name="contexttrace",
            name="omitted",
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.RunSQL(TO_IDS_BY_REASON, reverse_sql=TO_DETAIL_LIST),
    ]
