"""Different facts stay different: the entity rule every duplicate check asks before it merges."""

import json
from pathlib import Path

import pytest

from brain.formation.entities import entities, facts_differ

CORPUS = Path(__file__).resolve().parents[3] / "brain" / "formation" / "corpora" / "entity_pairs.jsonl"


def corpus() -> list[dict]:
    return [json.loads(line) for line in CORPUS.read_text().splitlines() if line.strip()]


def test_the_labelled_corpus_has_two_hundred_pairs_of_both_kinds():
    rows = corpus()
    kinds = {row["kind"] for row in rows}
    assert len(rows) >= 200 and kinds == {"entity", "paraphrase"}
    assert {row["entity"] for row in rows if row["kind"] == "entity"} >= {
        "name", "place", "email", "product", "number", "company", "phone", "day",
    }  # fmt: skip


def test_entity_swapped_pairs_differ_and_paraphrases_do_not():
    wrong = [row for row in corpus() if facts_differ(row["a"], row["b"]) == row["merge"]]
    assert wrong == []


@pytest.mark.parametrize(
    "a, b",
    [
        (
            "The customer Alice Morgan prefers a phone call after five pm on weekdays",
            "The customer Brian Chen prefers a phone call after five pm on weekdays",
        ),
        (
            "Ship orders to Berlin with the express courier.",
            "Ship orders to Madrid with the express courier.",
        ),
        ("Send invoices to billing@acme.test", "Send invoices to accounts@acme.test"),
        ("Orders over 50 euros ship for free.", "Orders over 80 euros ship for free."),
        ("The customer is reachable on five pm calls.", "The customer is reachable on six pm calls."),
        ("Globex gets a dedicated account manager.", "Northwind gets a dedicated account manager."),
        (
            "Replacement parts for the X200 ship separately.",
            "Replacement parts for the X300 ship separately.",
        ),
    ],
)
def test_facts_that_differ_in_an_entity_differ(a, b):
    assert facts_differ(a, b) and facts_differ(b, a)


@pytest.mark.parametrize(
    "a, b",
    [
        ("Note: Maria Chen prefers email in the morning.", "Maria Chen prefers email in the morning."),
        ("ESCALATE LATE DELIVERIES TO CARLA DIAZ.", "Escalate late deliveries to Carla Diaz."),
        ("the customer kira sato wants texts only.", "The customer Kira Sato wants texts only."),
        ("Refunds are issued within 30 days.", "Customers get refunds within 30 days."),
        ("Customer prefers follow-ups via email", "customer prefers follow-ups via e-mail."),
    ],
)
def test_restatements_of_one_fact_do_not_differ(a, b):
    assert not facts_differ(a, b) and not facts_differ(b, a)


def test_a_lower_case_text_lacking_a_name_differs_from_the_named_one():
    assert facts_differ("the customer wants texts only.", "The customer Kira Sato wants texts only.")


def test_what_counts_as_an_entity():
    found = entities("Call +44 20 7946 0958 or write to help@acme.test about SKU-12 before Friday, Bob.")
    assert {"help@acme.test", "sku-12", "44", "20", "7946", "0958", "friday", "bob"} <= found.all
    assert "call" not in found.named
