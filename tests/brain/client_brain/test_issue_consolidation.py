"""Issue 27, "Learn the way a good support lead would": one memory per issue. An issue is what customers report
plus how it was resolved, keyed by the problem, so every ticket of one problem reinforces its one row and a
different problem never merges into it."""

from collections import defaultdict

import pytest

from brain.api import TicketEvidence, client_brain_context, learn_from_evidence
from brain.client_brain.producers import extract_local
from brain.models import Memory, MemoryStatus

from .topic_set import TOPICS

pytestmark = pytest.mark.django_db


def ticket(tenant, n, subject, message, reply, classification=None):
    """A solved ticket; `message` (the customer's words) documents the case: learning reads the subject,
    the classification and the reply."""
    return TicketEvidence(
        tenant_id=tenant.pk,
        ticket_id=n,
        external_id=f"T-{n}",
        subject=subject,
        status="solved",
        classification=classification or {},
        latest_reply={
            "body": f"Hello,\n\n{reply}\n\nKind regards,\nAcme Support",
            "author": "Support",
            "sent_at": "2026-11-29T10:00:00+00:00",
        },
        customer=f"customer-{n}@example.com",
    )


def issues(tenant):
    return Memory.objects.for_tenant(tenant).filter(type="issues")


def tickets_of(row) -> set[int]:
    return {int(p["ticket_id"]) for p in row.provenance if p.get("kind") == "ticket"}


def test_forty_tickets_on_different_topics_are_not_one_issue(tenant):
    """Found by a new user: 40 solved tickets on 40 different topics became one "help with router" issue row
    that still read "(seen 1 times)"."""
    devices = ["router", "printer", "laptop", "tablet", "modem", "camera", "monitor", "keyboard", "speaker",
               "headset", "charger", "smartwatch", "television", "projector", "scanner", "drone", "console",
               "thermostat", "doorbell", "dishwasher"]  # fmt: skip
    for n, device in enumerate(devices, start=1):
        learn_from_evidence(
            ticket(
                tenant, n, f"Help with {device}", f"My {device} stopped working.",
                f"We reset your {device} settings remotely. Restart the {device} and it will work.",
            )
        )  # fmt: skip
    rows = list(issues(tenant))
    assert len(rows) == len(devices)
    assert all(row.frequency == 1 and "seen 1 times" not in row.text for row in rows)
    assert sorted(r.key for r in rows) == sorted(f"issue:{d}" for d in devices)


def test_the_labelled_topic_set_gives_one_issue_row_per_problem_and_merges_none(tenant):
    n, problem_of_ticket = 0, {}
    for category, intent, tickets in TOPICS:
        for subject, message, reply in tickets:
            n += 1
            problem_of_ticket[n] = intent
            learn_from_evidence(
                ticket(tenant, n, subject, message, reply, {"category": category, "intent": intent})
            )
    assert len(TOPICS) >= 20 and n >= 60
    rows = list(issues(tenant))
    problems_per_row = {row.pk: {problem_of_ticket[t] for t in tickets_of(row)} for row in rows}
    rows_per_problem = defaultdict(list)
    for row_id, problems in problems_per_row.items():
        for problem in problems:
            rows_per_problem[problem].append(row_id)
    merged = [row_id for row_id, problems in problems_per_row.items() if len(problems) > 1]
    assert merged == []  # no row holds two problems
    assert {p: len(r) for p, r in rows_per_problem.items()} == {intent: 1 for _, intent, _ in TOPICS}
    assert {(r.key, r.frequency, r.payload["frequency"]) for r in rows if r.frequency != 3} == set()
    assert all(row.status == MemoryStatus.ACTIVE for row in rows)
    # The prompt gives the count the row holds.
    prompt = client_brain_context(
        tenant_id=tenant.pk, subject="Charged twice", latest_customer_message="Two charges for one order"
    ).prompt
    assert "frequency=3" in prompt


@pytest.mark.parametrize(
    ("one", "other", "same"),
    [
        ("Help with my router", "Router help", True),
        ("Question about my printers", "Printer problem", True),
        ("Help with router", "Help with printer", False),
        ("Refund for boots", "Refund for jacket", False),
        ("Parcel 4471 late", "Late parcel 5512", True),
    ],
)
def test_an_unclassified_ticket_is_keyed_by_the_problem_its_subject_names(one, other, same):
    def key(subject):
        reply = {"body": "We reset the device remotely."}
        (item,) = [m for m in extract_local({"subject": subject, "latest_reply": reply})["memories"]
                   if m["type"] == "issues"]  # fmt: skip
        return item["key"]

    assert (key(one) == key(other)) is same


def test_stored_issue_texts_lose_their_stale_count_and_payloads_take_the_rows_frequency(tenant):
    import importlib

    from django.db import connection

    migration = importlib.import_module("brain.migrations.0022_issue_text_without_count")
    learn_from_evidence(ticket(tenant, 1, "Help with router", "", "We reset your router remotely."))
    row = issues(tenant).get()
    Memory.objects.for_tenant(tenant).filter(pk=row.pk).update(text=row.text + " (seen 1 times)", frequency=4)
    fact_text = "Refunds take five days (seen 1 times)"  # another type keeps its text
    from tests.brain.factories import fact

    other = fact(tenant, fact_text)
    with connection.cursor() as cursor:
        cursor.execute(migration.FORWARD)
    row.refresh_from_db()
    other.refresh_from_db()
    assert row.text == "Issue: Help with router; best resolution: We reset your router remotely."
    assert (row.frequency, row.payload["frequency"]) == (4, 4)
    assert other.text == fact_text


def test_an_issue_gathers_how_customers_put_it_and_recall_finds_it_by_any_of_their_words(tenant):
    classified = {"category": "shipping", "intent": "delivery_delayed"}
    subjects = ["Where is my parcel", "Package late", "Still waiting for delivery", "Package late"]
    for n, subject in enumerate(subjects, start=1):
        learn_from_evidence(
            ticket(tenant, n, subject, "", "We escalated the delay with the carrier.", classified)
        )
    row = issues(tenant).get()
    assert row.frequency == 4 and row.payload["frequency"] == 4
    # The first ticket named it; the two that put it in new words are gathered once each.
    assert row.payload["reports"] == ["Package late", "Still waiting for delivery"]
    assert row.text.endswith("also reported as: Package late; Still waiting for delivery")
    context = client_brain_context(
        tenant_id=tenant.pk, subject="Waiting", latest_customer_message="still waiting, nothing came"
    )
    assert row.pk in context.memory_ids


def test_an_issue_gathers_at_most_twelve_reports(tenant):
    from brain.client_brain.issues import MAX_REPORTS

    classified = {"category": "orders", "intent": "damaged_item"}
    for n in range(1, 20):
        learn_from_evidence(
            ticket(tenant, n, f"Broken item number{n}x", "", "We dispatched a replacement.", classified)
        )
    row = issues(tenant).get()
    assert row.frequency == 19 and len(row.payload["reports"]) == MAX_REPORTS


def test_a_resolution_that_says_what_was_done_replaces_one_that_only_gave_steps_and_stays(tenant):
    classified = {"category": "account", "intent": "password_reset"}
    replies = [
        "Click Forgot password on the sign-in page. Enter the address on your account.",
        "We sent a password reset link to the address on the account.",
        "We have reset the password and sent a temporary sign-in code.",
    ]
    for n, reply in enumerate(replies, start=1):
        learn_from_evidence(ticket(tenant, n, f"Password trouble {n}", "", reply, classified))
        row = issues(tenant).get()
        if n == 1:
            assert row.payload["resolved_by"] == "steps" and "Click Forgot password" in row.text
    assert row.frequency == 3
    assert row.payload["best_resolution"] == "We sent a password reset link to the address on the account."
    assert row.payload["resolved_by"] == "action" and "Click Forgot password" not in row.text
