"""`brain_bench activity` at a tiny size: both sides run, every figure is reported, the drain counts exactly what
the pending side recorded."""

import pytest

from brain.benchmarks.activity import measure
from brain.models import MemoryActivity
from tests.brain.factories import fact


@pytest.mark.django_db(transaction=True)
def test_the_activity_benchmark_reports_both_sides_and_drains_what_it_recorded(tenant):
    rows = [fact(tenant, f"Fact number {n}") for n in range(3)]
    lines = []
    figures = measure(
        tenant.pk, [r.pk for r in rows], threads=[1, 2], statements=5, rounds=2, progress=lines.append
    )
    assert set(figures["by_threads"]) == {1, 2}
    for row in figures["by_threads"].values():
        for side in ("upsert", "pending"):
            assert len(row[side]["statements_per_s"]) == 2 and row[side]["p95_ms"] >= row[side]["p50_ms"] > 0
        assert row["ratio"] > 0
    recorded = 2 * (1 + 2) * 5
    assert figures["drained"] == recorded
    counts = dict(MemoryActivity.objects.for_tenant(tenant).values_list("memory_id", "count"))
    assert counts == {r.pk: 2 * recorded for r in rows}  # the former upsert counted as many again
    assert any(line.startswith("drain: 30 recordings") for line in lines)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--threads", "1,x"], "--threads takes positive whole numbers"),
        (["--threads", "0"], "--threads takes positive whole numbers"),
        (["--rounds", "0"], "must be at least 1"),
    ],
)
def test_the_activity_benchmark_refuses_bad_options_with_a_message(args, message):
    from django.core.management import call_command
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match=message):
        call_command("brain_bench", "activity", *args)
