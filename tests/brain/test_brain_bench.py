"""`manage.py brain_bench <name>`: a dispatcher over BRAIN_BENCHMARKS; `--json` prints one object last.

This module doubles as a tiny benchmark plug-in (add_arguments + run) registered by the tests.
"""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command


def add_arguments(parser):
    parser.add_argument("--size", type=int, default=3)


def run(options, stdout):
    stdout.write(f"measuring {options['size']} things")
    return {"size": options["size"], "p95_ms": {"hybrid": {"1000": 1.5}}}


def test_dispatcher_runs_the_named_benchmark_and_prints_json_last(settings):
    settings.BRAIN_BENCHMARKS = {"tiny": "tests.brain.test_brain_bench"}
    out = StringIO()
    call_command("brain_bench", "tiny", "--size", "7", "--json", stdout=out)
    lines = out.getvalue().strip().splitlines()
    assert lines[0] == "measuring 7 things"
    assert json.loads(lines[-1]) == {"size": 7, "p95_ms": {"hybrid": {"1000": 1.5}}}


def test_a_benchmark_that_cannot_be_imported_says_why(settings):
    settings.BRAIN_BENCHMARKS = {"tiny": "tests.brain.test_brain_bench", "broken": "brain.benchmarks.no_such"}
    with pytest.raises(CommandError, match="brain.benchmarks.no_such cannot be imported"):
        call_command("brain_bench", "broken")
    out = StringIO()
    call_command("brain_bench", "tiny", stdout=out)  # the others still run
    assert "measuring 3 things" in out.getvalue()


def test_help_lists_every_registered_benchmark_even_with_a_percent_sign_in_its_summary():
    """`brain_bench --help` ended in argparse's ValueError: the poisoning benchmark's summary says "<= 2%"."""
    from django.core.management import load_command_class

    command = load_command_class("brain", "brain_bench")
    text = " ".join(command.create_parser("manage.py", "brain_bench").format_help().split())
    assert "benign look-alikes refused (goal <= 2%)" in text
    assert "locomo" in text and "replay" in text


def test_locomo_and_scale_are_registered():
    from django.conf import settings as live

    assert live.BRAIN_BENCHMARKS["locomo"] == "brain.benchmarks.locomo"
    assert live.BRAIN_BENCHMARKS["scale"] == "brain.benchmarks.scale"


def test_scale_counts_a_query_whose_exact_nearest_row_hybrid_kept():
    from brain.benchmarks.scale import _keeps_nearest

    # Kept, lost (its nearest row is not in the ten), and no row at all (an empty tenant): one of three.
    assert _keeps_nearest([[4, 7], [1, 2], []], [[7, 3], [9, 1], []]) == 0.333


def test_locomo_evidence_ids_tolerate_the_datas_odd_forms():
    from brain.benchmarks.locomo import BM25, evidence_ids, ndcg_at, recall_at

    dia = {"D8:6": 1, "D9:17": 2, "D11:26": 3, "D4:4": 4}
    assert evidence_ids(["D8:6; D9:17", "D:11:26", "D", "D4:4 D99:1"], dia) == {1, 2, 3, 4}
    assert recall_at([5, 1, 9], {1, 2}, 2) == 0.5
    assert ndcg_at([1, 2], {1, 2}) == pytest.approx(1.0)
    bm25 = BM25({1: "the cat sat", 2: "a dog ran far", 3: "cat and dog"})
    assert bm25.search("cat", 10)[:1] in ([1], [3]) and set(bm25.search("cat", 10)) == {1, 3}


def test_locomo_latency_keys_with_and_without_the_query_embedding():
    from brain.benchmarks.locomo_latency import latency_figures

    latencies = {"lexical": [1.0, 2.0, 3.0], "hybrid": [2.0, 4.0, 6.0]}
    figures = latency_figures(latencies, [10.0, 10.0, 30.0], limit=10)
    hybrid = figures["latency_ms"]
    assert hybrid["limit"] == 10
    assert hybrid["without_embedding"] == {"p50": 4.0, "p95": 6.0, "p99": 6.0, "max": 6.0}
    assert hybrid["with_embedding"] == {"p50": 14.0, "p95": 36.0, "p99": 36.0, "max": 36.0}  # per question
    lexical = figures["latency_ms_by_method"]["lexical"]
    assert lexical["with_embedding"] == lexical["without_embedding"]  # lexical never embeds the query
    assert figures["query_embedding_ms"]["p95"] == 30.0


@pytest.mark.skipif(
    __import__("importlib").util.find_spec("mem0") is not None, reason="mem0ai is installed here"
)
def test_the_mem0_comparison_is_skipped_with_a_reason_when_mem0ai_is_missing(tmp_path):
    from brain.benchmarks.mem0_compare import mem0_search_latency

    out = StringIO()
    figures = mem0_search_latency(None, [], limit=10, path=str(tmp_path), stdout=out)
    assert "mem0ai is not importable" in figures["skipped"] and "mem0 skipped" in out.getvalue()


def test_locomo_turns_carry_the_reranker_fields_and_the_ablation_measures_each_lever():
    from datetime import date

    from brain.benchmarks.locomo import reference_day, turn_payload
    from brain.benchmarks.locomo_ablation import settings_to_measure

    turn = {"dia_id": "D3:1", "speaker": "Caroline", "text": "Look!", "blip_caption": "a cat on a sofa"}
    payload = turn_payload(3, "1:56 pm on 8 May, 2023", turn, 41)
    assert payload["occurred_at"] == "2023-05-08" and payload["caption"] == "a cat on a sofa"
    assert (payload["thread"], payload["position"], payload["speaker"]) == ("session 3", 41, "Caroline")
    conversation = {
        "session_1_date_time": "7:00 pm on 9 June, 2023",
        "session_1": [turn],
        "session_2_date_time": "1:56 pm on 8 May, 2023",
        "session_2": [turn],
    }
    assert reference_day(conversation) == date(2023, 6, 9)  # the latest session, whatever its number
    measured = settings_to_measure({"NEIGHBOURS": 0.7, "TIME": 0.3})
    assert measured["fused (no reranker)"] is None
    assert (measured["+neighbours"]["NEIGHBOURS"], measured["+neighbours"]["TIME"]) == (0.7, 0.0)
    assert measured["+speaker"]["SPEAKER"] == 0.1 and measured["all levers"]["SPEAKER"] == 0.0
    assert (
        "all -time" not in measured
        and settings_to_measure({"TIME": 0.3}, leave_one_out=True)["all -time"]["TIME"] == 0
    )
