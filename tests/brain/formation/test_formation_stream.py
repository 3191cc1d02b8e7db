"""The formation benchmark's stream, replayed at a small size as a regression test of the end-to-end guarantees.

(The figures with timings come from `manage.py brain_bench formation`; no timing is asserted here.)
"""

import random

import pytest

from brain.benchmarks.common import bitext_path
from brain.benchmarks.formation import build_stream, dataset_slots, replay

pytestmark = pytest.mark.django_db


def test_a_replayed_stream_admits_no_garbage_secrets_or_echoes_and_writes_no_duplicates(tenant):
    stream = build_stream(150, ["agent-0", "agent-1"], random.Random(11), dataset_slots(bitext_path()))
    kinds = {item.kind for item in stream}
    assert kinds == {"fact", "garbage", "secret", "echo"}
    figures = replay(stream, tenant_id=tenant.pk)
    assert figures["garbage_admitted"] == 0
    assert figures["secrets_admitted"] == 0
    assert figures["echoes_admitted"] == 0
    assert figures["duplicates_exact"] == 0
    assert figures["duplicates_near_pct"] <= 1.0
    assert figures["facts_lost"] == 0
    assert figures["rows_written"] >= figures["distinct_facts"]
