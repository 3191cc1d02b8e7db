"""Verdict shares are spent per context trace now, whatever record the trace is judged through (issue 26,
section 3; brain/verdicts.py): brain's `VerdictSpend` rows are keyed by the underlying trace ("trace:12"), where
a verdict on a run or a conversation used to spend a share of its own ("run:5", "conversation:3").

The earlier rows of runs and conversations are carried over, not dropped: what a record's verdicts moved a
memory by is charged to every trace of the record that injected the memory (added to what the trace had spent
on its own, at most one delta), as a verdict charges it now; then the record's rows are deleted. Dropping them
would have handed every trace of a judged run a fresh delta. A record whose traces are gone (or never injected
the memory) leaves nothing to carry: no verdict through it can move the memory any more either.

Brain does not resolve these refs (its docstring: the caller names the judged record and its traces), so the
translation lives here, with the records. Reversing leaves the per-trace rows as they are (the per-record ones
cannot be told apart again): the earlier code would then give a run's or conversation's verdicts a fresh delta.
`migrate` runs with the tenant wall's bypass: every tenant's rows are carried over.
"""

from django.db import migrations

CARRY_OVER = """
WITH record_traces AS (
    SELECT r.tenant_id, 'run:' || r.id AS record, t.id::bigint AS trace_id
    FROM intelligence_agentrun r CROSS JOIN LATERAL jsonb_array_elements_text(r.trace_ids) AS t(id)
    WHERE jsonb_typeof(r.trace_ids) = 'array' AND t.id ~ '^[0-9]+$'
    UNION
    SELECT c.tenant_id, 'conversation:' || c.conversation_id, c.context_trace_id
    FROM intelligence_conversationturn c WHERE c.context_trace_id IS NOT NULL
), charged AS (
    SELECT s.tenant_id, 'trace:' || ct.id AS trace, s.memory_id, SUM(s.spent) AS spent
    FROM brain_verdictspend s
    JOIN record_traces rt ON rt.tenant_id = s.tenant_id AND rt.record = s.trace
    JOIN intelligence_contexttrace ct ON ct.id = rt.trace_id AND ct.tenant_id = s.tenant_id
    WHERE ct.injected_memory_ids @> to_jsonb(s.memory_id)
    GROUP BY s.tenant_id, ct.id, s.memory_id
)
INSERT INTO brain_verdictspend AS s (tenant_id, trace, memory_id, spent, last_applied)
SELECT tenant_id, trace, memory_id, LEAST(1.0, spent), 0.0 FROM charged
ON CONFLICT (tenant_id, trace, memory_id) DO UPDATE SET spent = LEAST(1.0, s.spent + EXCLUDED.spent);

DELETE FROM brain_verdictspend WHERE trace ~ '^(run|conversation):';
"""


class Migration(migrations.Migration):
    dependencies = [
        ("intelligence", "0007_tenant_in_tenancy_app"),
        ("brain", "0018_verdict_spend"),
    ]

    operations = [migrations.RunSQL(CARRY_OVER, reverse_sql=migrations.RunSQL.noop)]
