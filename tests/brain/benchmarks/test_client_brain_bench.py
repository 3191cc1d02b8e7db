"""`brain_bench client-brain`'s recall measurement runs, and reports each figure it promises, at a tiny size."""

import pytest

from brain.benchmarks.client_brain import measure_recall_latency
from brain.models import Memory


@pytest.mark.django_db
def test_the_recall_benchmark_reports_every_figure_and_leaves_no_rows():
    lines = []
    figures = measure_recall_latency((40, 80), queries=3, warmup=1, progress=lines.append)
    for name in (
        "recall_p50_ms", "recall_p95_ms", "read_path_p50_ms", "dashboard_p50_ms", "dashboard_p95_ms",
        "dashboard_after_write_p50_ms", "dashboard_after_write_p95_ms", "dashboard_baseline_p95_ms",
        "dashboard_baseline_after_write_p95_ms", "read_path_python_cpu_p50_ms", "rare_word_keyword_tier",
        "search_box_literal",
    ):  # fmt: skip
        assert set(figures[name]) == {40, 80}, name
    assert all(ms > 0 for ms in figures["dashboard_after_write_p50_ms"].values())
    assert figures["rare_word_keyword_tier"][80]["found"] is True
    keyed = figures["rare_word_keyword_tier"][80]["keyed"]  # what the tier runs first for the word
    assert keyed["found"] is True and keyed["execution_ms"] >= 0  # its plan depends on the table's size
    assert any("dashboard's first page" in line for line in lines)
    literal = figures["search_box_literal"][80]  # the same rows found both ways, or the benchmark raises
    assert set(literal) == {"no_row", "phrase", "common_word"} and literal["no_row"]["found"] == 0
    assert literal["phrase"]["found"] >= 1 and literal["phrase"]["keyed_p50_ms"] > 0
    assert not Memory.objects.all_tenants().exists()  # the benchmark tenant's rows are removed


def test_timed_queries_are_fresh_and_bring_words_neither_warm_up_nor_the_rows_hold():
    """Issue 18: a timed query is never one run before in the process, and each has a word that no warm-up
    query and no stored row has (so no per-process cache of terms can have seen it), and a stored noun the
    warm-up never used."""
    import random

    from brain.benchmarks.client_brain import WORDS, QueryStream
    from brain.client_brain.words import words

    stream = QueryStream(random.Random(3))
    warm = stream.take(50, timed=False)
    timed = stream.take(300, timed=True) + stream.take(300, timed=True)
    assert len(set(warm + timed)) == len(warm) + len(timed)
    warm_words = {w for q in warm for w in words(*q)}
    assert not warm_words & set(stream.held_out)
    seen = set(warm_words)
    for query in timed:
        query_words = set(words(*query))
        assert query_words - seen - set(WORDS), query  # a word never seen before, in no stored row
        assert query_words & set(stream.held_out), query
        seen |= query_words
