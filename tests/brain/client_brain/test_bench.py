"""`brain_bench client-brain`'s recall measurement runs, and reports each figure it promises, at a tiny size."""

import pytest

from brain.client_brain.bench import measure_recall_latency
from brain.models import Memory


@pytest.mark.django_db
def test_the_recall_benchmark_reports_every_figure_and_leaves_no_rows():
    lines = []
    figures = measure_recall_latency((40, 80), queries=3, warmup=1, progress=lines.append)
    for name in (
        "recall_p50_ms", "recall_p95_ms", "read_path_p50_ms", "dashboard_p50_ms",
        "dashboard_after_write_p50_ms", "read_path_python_cpu_p50_ms", "rare_word_keyword_tier",
    ):  # fmt: skip
        assert set(figures[name]) == {40, 80}, name
    assert all(ms > 0 for ms in figures["dashboard_after_write_p50_ms"].values())
    assert figures["rare_word_keyword_tier"][80]["found"] is True
    assert any("dashboard's first page" in line for line in lines)
    assert not Memory.objects.all_tenants().exists()  # the benchmark tenant's rows are removed
