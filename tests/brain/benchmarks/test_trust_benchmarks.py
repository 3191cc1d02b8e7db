"""Smoke tests of `brain_bench poisoning` and `brain_bench extraction` at a tiny size; the benchmarks that read
the Bitext sample stop when it is missing."""

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from brain.benchmarks import trust


def run(*args):
    out = StringIO()
    call_command("brain_bench", *args, "--json", stdout=out)
    return json.loads(out.getvalue().strip().splitlines()[-1])


def test_poisoning_prints_the_issues_keys():
    figures = run("poisoning", "--limit", "5", "--no-public")
    assert {
        "attacks",
        "attacks_admitted",
        "benign",
        "benign_rejected_pct",
        "pii_cases",
        "pii_admitted",
    } <= set(figures)
    assert figures["attacks"] == figures["benign"] == 5 and figures["pii_cases"] == 5
    assert figures["attacks_admitted"] == 0 and figures["pii_admitted"] == 0


def test_extraction_prints_its_figures():
    figures = run("extraction", "--limit", "4")
    assert figures["cases"] == 4 and figures["expected_facts"] == 4
    assert figures["sign_offs_admitted"] == figures["personal_data_admitted"] == 0


def test_extraction_fails_loudly_without_the_bitext_sample(settings, tmp_path):
    settings.BRAIN_BITEXT_CSV = str(tmp_path / "missing.csv")
    trust.bitext_responses.cache_clear()
    try:
        with pytest.raises(CommandError, match="Bitext sample is missing at .*missing.csv.*BRAIN_BITEXT_CSV"):
            trust.bitext_responses()
    finally:
        trust.bitext_responses.cache_clear()


def test_formation_fails_loudly_without_the_bitext_sample(settings, tmp_path):
    """No silent fallback to the built-in lists: the run stops before it loads anything."""
    settings.BRAIN_BITEXT_CSV = str(tmp_path / "missing.csv")
    with pytest.raises(CommandError, match="Bitext sample is missing at .*missing.csv.*BRAIN_BITEXT_CSV"):
        run("formation", "--n", "10", "--database", "brain_bench_never_created")
