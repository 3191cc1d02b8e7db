"""REST for the helpdesk integration: tickets by external id, evidence, status changes, learning attempts."""

import pytest
from django.urls import reverse

from brain.models import Memory
from tickets import services
from tickets.models import Approval, Classification, LearningAttempt, Message, Ticket

from .learning_helpers import FORMAL_REPLY


def url(name, **kwargs):
    return reverse(name, kwargs=kwargs)


def test_posting_a_ticket_twice_with_the_same_external_id_upserts_it(api, tenant):
    first = api.post(url("ticket-list"), {"external_id": "ZD-1", "subject": "Tent pole snapped"})
    again = api.post(url("ticket-list"), {"external_id": "ZD-1", "subject": "Tent pole snapped (update)"})
    assert (first.status_code, again.status_code) == (201, 200)
    assert first.json()["id"] == again.json()["id"]
    ticket = Ticket.objects.for_tenant(tenant).get()
    assert (ticket.subject, ticket.status) == ("Tent pole snapped (update)", "new")


def test_the_same_external_id_in_two_tenants_is_two_tickets(api, other_api, tenant, other_tenant):
    assert api.post(url("ticket-list"), {"external_id": "ZD-1", "subject": "ours"}).status_code == 201
    assert other_api.post(url("ticket-list"), {"external_id": "ZD-1", "subject": "theirs"}).status_code == 201
    assert Ticket.objects.for_tenant(tenant).get().subject == "ours"
    assert Ticket.objects.for_tenant(other_tenant).get().subject == "theirs"


def test_put_and_patch_update_an_existing_ticket_and_a_missing_one_is_404(api, tenant):
    api.post(url("ticket-list"), {"external_id": "ZD-2", "subject": "Old"})
    put = api.put(
        url("ticket-detail", external_id="ZD-2"), {"subject": "New", "requester": "sam@example.com"}
    )
    patch = api.patch(url("ticket-detail", external_id="ZD-2"), {"status": "pending"})
    assert put.status_code == patch.status_code == 200
    assert (patch.json()["subject"], patch.json()["requester"], patch.json()["status"]) == (
        "New",
        "sam@example.com",
        "pending",
    )
    missing = api.put(url("ticket-detail", external_id="NOPE"), {"subject": "x"})
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"subject": "no id"}, "external_id"),
        ({"external_id": "  ", "subject": "blank id"}, "external_id"),
        ({"external_id": "A-1", "status": "done"}, "status"),
    ],
)
def test_invalid_tickets_answer_400_saying_what_to_fix(api, body, field):
    response = api.post(url("ticket-list"), body)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid" and field in error["fields"] and error["message"]


def test_messages_classifications_and_approvals_are_added_and_listed(api, tenant):
    api.post(url("ticket-list"), {"external_id": "ZD-3", "subject": "Dropped calls"})
    inbound = api.post(
        url("ticket-messages", external_id="ZD-3"),
        {"direction": "inbound", "body": "My calls drop every evening.", "external_id": "m1"},
    )
    repeat = api.post(
        url("ticket-messages", external_id="ZD-3"),
        {"direction": "inbound", "body": "My calls drop every evening.", "external_id": "m1"},
    )
    note = api.post(
        url("ticket-messages", external_id="ZD-3"),
        {"direction": "outbound", "body": "Checked the tower logs.", "is_note": True},
    )
    assert (inbound.status_code, repeat.status_code, note.status_code) == (201, 200, 201)
    assert inbound.json()["id"] == repeat.json()["id"]
    classified = api.post(
        url("ticket-classifications", external_id="ZD-3"),
        {"category": "network", "intent": "dropped_calls", "labels": ["voice"], "confidence": 0.8},
    )
    approved = api.post(
        url("ticket-approvals", external_id="ZD-3"),
        {"proposed_action": "Credit one month of line rental", "kind": "credit", "decision": "approved"},
    )
    assert classified.status_code == approved.status_code == 201
    listed = api.get(url("ticket-messages", external_id="ZD-3")).json()
    assert listed["count"] == 2 and [m["external_id"] for m in listed["results"]] == ["m1", ""]
    assert api.get(url("ticket-messages", external_id="ZD-3"), {"is_note": "true"}).json()["count"] == 1
    assert (
        api.get(url("ticket-classifications", external_id="ZD-3")).json()["results"][0]["intent"]
        == "dropped_calls"
    )
    assert api.get(url("ticket-approvals", external_id="ZD-3")).json()["results"][0]["decision"] == "approved"
    assert Message.objects.for_tenant(tenant).count() == 2
    assert (
        Classification.objects.for_tenant(tenant).count() == Approval.objects.for_tenant(tenant).count() == 1
    )


@pytest.mark.parametrize(
    ("route", "body", "field"),
    [
        ("ticket-messages", {"direction": "sideways", "body": "x"}, "direction"),
        ("ticket-messages", {"direction": "inbound", "body": "   "}, "body"),
        ("ticket-classifications", {"labels": ["x"]}, "category"),
        ("ticket-classifications", {"category": "billing", "confidence": 1.5}, "confidence"),
        ("ticket-approvals", {"proposed_action": "Refund", "decision": "maybe"}, "decision"),
        ("ticket-approvals", {"proposed_action": " ", "decision": "approved"}, "proposed_action"),
    ],
)
def test_invalid_evidence_answers_400_saying_what_to_fix(api, route, body, field):
    api.post(url("ticket-list"), {"external_id": "ZD-4"})
    response = api.post(url(route, external_id="ZD-4"), body)
    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]


def test_evidence_for_an_unknown_ticket_is_404(api):
    response = api.post(
        url("ticket-messages", external_id="NOPE"), {"direction": "inbound", "body": "Hi there"}
    )
    assert response.status_code == 404
    assert api.get(url("ticket-approvals", external_id="NOPE")).status_code == 404


def test_solving_through_the_api_learns_and_the_attempt_is_listed(
    api, tenant, django_capture_on_commit_callbacks
):
    api.post(url("ticket-list"), {"external_id": "ZD-5", "subject": "Tent pole snapped", "status": "open"})
    api.post(url("ticket-messages", external_id="ZD-5"), {"direction": "outbound", "body": FORMAL_REPLY})
    api.post(
        url("ticket-classifications", external_id="ZD-5"), {"category": "product", "intent": "damaged_item"}
    )
    with django_capture_on_commit_callbacks(execute=True):
        solved = api.post(url("ticket-status", external_id="ZD-5"), {"status": "solved"})
    with django_capture_on_commit_callbacks(execute=True) as again:
        api.post(url("ticket-status", external_id="ZD-5"), {"status": "closed"})
    assert solved.status_code == 200 and solved.json()["status"] == "solved"
    assert again == []
    attempts = api.get(url("learning-attempt-list")).json()
    assert attempts["count"] == 1
    attempt = attempts["results"][0]
    assert (attempt["ticket_external_id"], attempt["status"]) == ("ZD-5", "succeeded")
    assert attempt["added"] == Memory.objects.for_tenant(tenant).count() > 0
    detail = api.get(url("learning-attempt-detail", pk=attempt["id"])).json()
    assert {o["result"] for o in detail["outcomes"]} == {"added"}
    assert api.get(url("learning-attempt-list"), {"status": "skipped"}).json()["count"] == 0


def test_a_bad_status_change_is_a_400(api):
    api.post(url("ticket-list"), {"external_id": "ZD-6"})
    response = api.post(url("ticket-status", external_id="ZD-6"), {"status": "archived"})
    assert response.status_code == 400 and "status" in response.json()["error"]["fields"]


def test_viewers_read_but_cannot_write(tenant, member_factory):
    from rest_framework.test import APIClient

    from tickets.tenancy.models import Role

    client = APIClient()
    client.force_login(member_factory(tenant, Role.VIEWER))
    services.ticket_upsert(tenant=tenant, external_id="ZD-7", subject="x")
    assert client.get(url("ticket-list")).status_code == 200
    assert client.post(url("ticket-status", external_id="ZD-7"), {"status": "solved"}).status_code == 403


def test_lists_are_paginated_with_bounded_queries(api, tenant, django_assert_max_num_queries):
    for n in range(30):
        ticket, _ = services.ticket_upsert(tenant=tenant, external_id=f"P-{n}", subject=f"Ticket {n}")
        services.message_add(ticket=ticket, direction="inbound", body=f"Message {n}")
        LearningAttempt.objects.create(tenant=tenant, ticket=ticket, ticket_external_id=ticket.external_id)
    with django_assert_max_num_queries(6):
        page = api.get(url("ticket-list"), {"limit": 10}).json()
    assert page["count"] == 30 and len(page["results"]) == 10 and page["next"]
    with django_assert_max_num_queries(6):
        attempts = api.get(url("learning-attempt-list"), {"limit": 25}).json()
    assert attempts["count"] == 30 and len(attempts["results"]) == 25
    with django_assert_max_num_queries(7):
        messages = api.get(url("ticket-messages", external_id="P-3")).json()
    assert messages["count"] == 1
