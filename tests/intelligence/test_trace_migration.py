"""Migration 0004 rewrites a stored trace's omissions from one object each to memory ids per reason."""

import importlib
import json

from django.db import connection

from intelligence.models import ContextTrace

from .factories import make_agent

migration = importlib.import_module("intelligence.migrations.0004_trace_omitted_ids_by_reason")


def _stored(trace_id):
    with connection.cursor() as cursor:
        cursor.execute("SELECT omitted FROM intelligence_contexttrace WHERE id = %s", [trace_id])
        value = cursor.fetchone()[0]
    return json.loads(value) if isinstance(value, str) else value


def test_old_traces_become_ids_per_reason_in_order_and_back(tenant):
    agent = make_agent(tenant)
    old = [
        {"memory_id": 7, "strength": "preference", "reason": "not_relevant", "chars": 30, "relevance": 0.0},
        {
            "memory_id": 3,
            "strength": "hard_rule",
            "reason": "tier_budget_exceeded",
            "chars": 90,
            "relevance": 0.1,
        },
        {"memory_id": 5, "strength": "preference", "reason": "not_relevant", "chars": 41, "relevance": 0.0},
    ]
    trace = ContextTrace.objects.create(tenant=tenant, agent=agent)
    empty = ContextTrace.objects.create(tenant=tenant, agent=agent)
    new = ContextTrace.objects.create(tenant=tenant, agent=agent, omitted={"not_relevant": [1]})
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE intelligence_contexttrace SET omitted = %s::jsonb WHERE id = %s",
            [json.dumps(old), trace.pk],
        )
        cursor.execute("UPDATE intelligence_contexttrace SET omitted = '[]'::jsonb WHERE id = %s", [empty.pk])
        cursor.execute(migration.TO_IDS_BY_REASON)
    assert _stored(trace.pk) == {"not_relevant": [7, 5], "tier_budget_exceeded": [3]}
    assert _stored(empty.pk) == {}
    assert _stored(new.pk) == {"not_relevant": [1]}  # already in the new form: untouched
    with connection.cursor() as cursor:
        cursor.execute(migration.TO_DETAIL_LIST)
    back = _stored(trace.pk)
    assert sorted((o["memory_id"], o["reason"]) for o in back) == sorted(
        (o["memory_id"], o["reason"]) for o in old
    )
