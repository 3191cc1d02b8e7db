"""What an agent wrote itself (issue 28, item 1): promoting a note to an operator memory (derived_from, history),
the runtime answer's count of matching notes, the "Written by the agent" pages, and the home page's weekly
counts agreeing with what the pages list."""

import re

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from brain.api import (
    MemoryCandidate,
    agent_memory_get,
    agent_memory_list,
    graph_neighbours,
    memory_history,
    promote,
)
from intelligence.services import (
    AgentMemoryNotFound,
    ContextRequest,
    agent_context_assemble,
    agent_note_promote,
)
from tests.conftest import make_member
from tickets.tenancy.models import Role

from .factories import add_memory, make_agent, write_note

pytestmark = pytest.mark.django_db


def signed_in(tenant, role=Role.OPERATOR, username=None) -> Client:
    client = Client()
    client.force_login(make_member(tenant, role, username=username))
    return client


@pytest.fixture
def agent(tenant):
    return make_agent(tenant, name="Helpdesk bot")


# --- promote a note --------------------------------------------------------------------------------------


def test_promoting_a_note_adds_an_operator_memory_derived_from_it_and_records_it(agent):
    note = write_note(agent, "Bo prefers replies in Swedish.", run_id="run-7")
    outcome = agent_note_promote(
        agent=agent,
        note_id=note,
        actor="user:1",
        category="preference",
        strength="preference",
        text="Reply to Bo in Swedish.",
    )
    assert outcome.result == "added", outcome
    memory = agent_memory_get(tenant_id=agent.tenant_id, agent_id=agent.pk, memory_id=outcome.memory_id)
    assert (memory.text, memory.strength, memory.status, memory.source, memory.written_by) == (
        "Reply to Bo in Swedish.",
        "preference",
        "active",
        "manual",
        "operator",
    )
    links = graph_neighbours(tenant_id=agent.tenant_id, memory_id=memory.id, relations=["derived_from"])
    assert [(n.direction, n.node_kind, n.memory_id) for n in links] == [("out", "memory", note)]

    note_history = memory_history(tenant_id=agent.tenant_id, memory_id=note)
    assert (note_history[0].action, note_history[0].actor, note_history[0].after["memory_id"]) == (
        "promoted",
        "user:1",
        memory.id,
    )
    added = memory_history(tenant_id=agent.tenant_id, memory_id=memory.id)[0]
    assert (added.action, added.actor, added.surface) == ("added", "user:1", "operator")
    # The note stays as the agent wrote it, and says where it went.
    record = agent_memory_get(
        tenant_id=agent.tenant_id, agent_id=agent.pk, memory_id=note, written_by="agent"
    )
    assert record.text == "Bo prefers replies in Swedish." and record.promoted_to_ids == (memory.id,)


def test_a_refused_promotion_writes_nothing_and_says_why(agent):
    note = write_note(agent, "Bo prefers replies in Swedish.")
    outcome = agent_note_promote(
        agent=agent,
        note_id=note,
        actor="user:1",
        category="instruction",
        strength="hard_rule",
        text="https://acme.example.com/orders/55",
    )
    assert (outcome.result, outcome.reason) == ("rejected", "bare_url")
    assert agent_memory_list(tenant_id=agent.tenant_id, agent_id=agent.pk).total == 0
    assert [h.action for h in memory_history(tenant_id=agent.tenant_id, memory_id=note)] == ["added"]


def test_only_this_agents_notes_promote_to_a_preference_or_a_rule(agent, tenant, other_tenant):
    note = write_note(agent, "Bo prefers replies in Swedish.")
    rule = add_memory(agent, "Never share internal ticket notes with customers.")
    sibling = make_agent(tenant, name="Other bot")
    values = {"actor": "user:1", "category": "fact", "strength": "preference", "text": "Bo reads Swedish."}
    with pytest.raises(AgentMemoryNotFound):
        agent_note_promote(agent=sibling, note_id=note, **values)
    with pytest.raises(AgentMemoryNotFound):
        agent_note_promote(agent=agent, note_id=rule, **values)  # an operator memory is no note
    with pytest.raises(AgentMemoryNotFound):
        agent_note_promote(agent=make_agent(other_tenant, name="Theirs"), note_id=note, **values)
    with pytest.raises(ValidationError):
        agent_note_promote(agent=agent, note_id=note, **{**values, "strength": "context_note"})


def test_a_promoted_note_is_no_duplicate_of_its_wording_and_a_second_promotion_reinforces(agent):
    note = write_note(agent, "Bo prefers replies in Swedish.")
    values = {"actor": "user:1", "category": "preference", "strength": "preference"}
    first = agent_note_promote(agent=agent, note_id=note, text="Bo prefers replies in Swedish.", **values)
    assert first.result == "added"  # the note, never injected, does not swallow the operator's memory
    again = agent_note_promote(agent=agent, note_id=note, text="Bo prefers replies in Swedish.", **values)
    assert again.result == "reinforced"
    record = agent_memory_get(
        tenant_id=agent.tenant_id, agent_id=agent.pk, memory_id=note, written_by="agent"
    )
    assert record.promoted_to_ids == (first.memory_id,)


# --- the runtime's answer ----------------------------------------------------------------------------------


def test_the_context_counts_the_notes_matching_the_conversation_without_injecting_them(api, agent):
    rule = add_memory(agent, "Never promise a refund before the billing team confirms it.")
    swedish = write_note(agent, "Bo prefers replies in Swedish.")
    parcel = write_note(agent, "Parcels to Sweden ship from the Malmö depot.", mined=True)
    write_note(agent, "The invoice portal is down on Sundays.")
    url = reverse("agent-context", kwargs={"agent_pk": agent.pk})

    data = api.post(url, {"conversation": "Bo asks in Swedish where his parcel is."}, format="json").json()
    assert data["notes_matching"] == 2
    assert data["injected_memory_ids"] == [rule]
    assert {swedish, parcel}.isdisjoint(o["memory_id"] for o in data["omitted"])
    assert "Swedish" not in data["prompt"]
    nothing = api.post(url, {"conversation": "Where can I change my password?"}, format="json").json()
    assert nothing["notes_matching"] == 0


def test_an_agent_without_notes_counts_none_and_another_agents_notes_do_not_count(agent, tenant):
    other = make_agent(tenant, name="Other bot")
    write_note(other, "Bo prefers replies in Swedish.")
    assembly, _ = agent_context_assemble(
        agent=agent, request=ContextRequest(conversation="Bo writes in Swedish.")
    )
    assert assembly.notes_matching == 0
    assembly, _ = agent_context_assemble(
        agent=other, request=ContextRequest(conversation="Bo writes in Swedish.")
    )
    assert assembly.notes_matching == 1


def test_the_context_page_says_how_many_notes_match(tenant, agent):
    write_note(agent, "Bo prefers replies in Swedish.")
    write_note(agent, "Parcels to Sweden ship from the Malmö depot.")
    client = signed_in(tenant, Role.VIEWER)
    html = client.post(
        reverse("intelligence-preview", args=[agent.pk]), {"conversation": "Bo asks in Swedish."}
    ).content.decode()
    line = html.split('data-testid="notes-matching"')[1].split("</p>")[0]
    assert "1 note the agent wrote itself matches this conversation" in line
    assert reverse("intelligence-notes", args=[agent.pk]) in line


# --- the pages -------------------------------------------------------------------------------------------


def test_the_written_by_the_agent_view_lists_notes_with_their_origin_and_escapes_them(tenant, agent, api):
    api.post(
        reverse("agent-context", kwargs={"agent_pk": agent.pk}),
        {"conversation": "Hi", "conversation_id": "chat-1"},
        format="json",
    )
    note = write_note(agent, "Bo <b>prefers</b> replies in Swedish.", run_id="chat-1")
    mined = write_note(
        agent, "The customer prefers email over phone calls.", conversation_id="chat-9", mined=True
    )
    add_memory(agent, "Never share internal ticket notes with customers.")
    viewer = signed_in(tenant, Role.VIEWER)

    html = viewer.get(reverse("intelligence-notes", args=[agent.pk])).content.decode()
    assert f'data-testid="note-row-{note}"' in html and f'data-testid="note-row-{mined}"' in html
    assert "Bo &lt;b&gt;prefers&lt;/b&gt;" in html and "<b>prefers</b>" not in html
    assert "Never share internal" not in html  # an operator memory is on the Intelligence tab
    row = html.split(f'data-testid="note-row-{note}"')[1].split("</tr>")[0]
    assert "Remembered by the agent" in row and 'title="memory_append"' in row
    assert reverse("intelligence-conversations", args=[agent.pk]) + "#conversation-" in row
    mined_row = html.split(f'data-testid="note-row-{mined}"')[1].split("</tr>")[0]
    assert "Mined from a chat" in mined_row and "chat-9" in mined_row and "no record of it here" in mined_row
    assert "2 notes" in html and "History · Promote" not in html  # a viewer reads only

    only_mined = viewer.get(
        reverse("intelligence-notes", args=[agent.pk]), {"surface": "chat"}
    ).content.decode()
    assert f"note-row-{mined}" in only_mined and f"note-row-{note}" not in only_mined
    tab = viewer.get(reverse("intelligence-tab", args=[agent.pk])).content.decode()
    card = tab.split('data-testid="notes-card"')[1].split("</a>")[0]
    assert ">2<" in card and "notes written by the agent" in card


def test_the_empty_view_says_how_an_agent_writes_a_note(tenant, agent):
    html = signed_in(tenant, Role.VIEWER).get(reverse("intelligence-notes", args=[agent.pk])).content.decode()
    empty = html.split('data-testid="notes-empty"')[1]
    assert "has not written a note yet" in empty and "remember" in empty and "memory-append" in empty
    filtered = signed_in(tenant, Role.VIEWER, username="v2").get(
        reverse("intelligence-notes", args=[agent.pk]), {"q": "nothing"}
    )
    assert "No note matches these filters" in filtered.content.decode()


def test_an_operator_promotes_a_note_from_its_page(tenant, agent):
    note = write_note(agent, "Bo prefers replies in Swedish.")
    operator = signed_in(tenant)
    page = operator.get(reverse("intelligence-note", args=[agent.pk, note])).content.decode()
    assert 'data-testid="promote-form"' in page and "Bo prefers replies in Swedish.</textarea>" in page
    response = operator.post(
        reverse("intelligence-note-promote", args=[agent.pk, note]),
        {
            "category": "preference",
            "strength": "hard_rule",
            "status": "active",
            "content": "Reply to Bo in Swedish.",
        },
        follow=True,
    )
    html = response.content.decode()
    new_id = int(re.search(r"Promoted the note to \[mem:(\d+)\], a rule", html).group(1))
    assert response.redirect_chain[-1][0] == reverse("intelligence-memory", args=[agent.pk, new_id])
    assert (
        'data-testid="promoted-from"' in html and reverse("intelligence-note", args=[agent.pk, note]) in html
    )
    note_page = operator.get(reverse("intelligence-note", args=[agent.pk, note])).content.decode()
    assert 'data-testid="history-promoted"' in note_page and f"[mem:{new_id}]" in note_page


def test_a_refused_promotion_shows_the_gates_reason_in_words(tenant, agent):
    note = write_note(agent, "Bo prefers replies in Swedish.")
    response = signed_in(tenant).post(
        reverse("intelligence-note-promote", args=[agent.pk, note]),
        {
            "category": "fact",
            "strength": "preference",
            "status": "active",
            "content": "https://acme.example.com/x",
        },
    )
    html = response.content.decode()
    assert response.status_code == 200 and "The note was not promoted" in html
    errors = html.split('data-testid="promote-errors"')[1].split("</div>")[0]
    assert (
        "it is a bare web address, not a fact" in errors
        and 'title="Formation gate reason: bare_url"' in errors
    )


def test_a_notes_memory_link_leads_to_the_notes_page(tenant, agent):
    note = write_note(agent, "Bo prefers replies in Swedish.")
    response = signed_in(tenant, Role.VIEWER).get(reverse("intelligence-memory", args=[agent.pk, note]))
    assert response.status_code == 302
    assert response["Location"] == reverse("intelligence-note", args=[agent.pk, note])
    other = make_agent(tenant, name="Other bot")
    missing = signed_in(tenant, Role.VIEWER, username="v3").get(
        reverse("intelligence-memory", args=[other.pk, note])
    )
    assert missing.status_code == 404


def test_viewers_cannot_promote_and_other_agents_notes_are_404(tenant, agent):
    note = write_note(agent, "Bo prefers replies in Swedish.")
    values = {
        "category": "fact",
        "strength": "preference",
        "status": "active",
        "content": "Bo reads Swedish.",
    }
    viewer = signed_in(tenant, Role.VIEWER)
    assert viewer.post(reverse("intelligence-note-promote", args=[agent.pk, note]), values).status_code == 403
    sibling = make_agent(tenant, name="Other bot")
    operator = signed_in(tenant, username="op2")
    assert operator.get(reverse("intelligence-note", args=[sibling.pk, note])).status_code == 404
    assert (
        operator.post(reverse("intelligence-note-promote", args=[sibling.pk, note]), values).status_code
        == 404
    )
    rule = add_memory(agent, "Never share internal ticket notes with customers.")
    assert operator.get(reverse("intelligence-note", args=[agent.pk, rule])).status_code == 404


# --- the home page ----------------------------------------------------------------------------------------


def test_this_weeks_added_counts_what_the_pages_list(tenant, agent):
    add_memory(agent, "Never share internal ticket notes with customers.")
    write_note(agent, "Bo prefers replies in Swedish.")
    write_note(agent, "The customer prefers email over phone calls.", mined=True)
    # Written, but listed by no page: an App's lesson and a memory mined into a conversation's scope.
    for scope_kind, scope_id, memory_type in (
        ("app", "shopify", "lesson"),
        ("conversation", "chat-3", "chat"),
    ):
        promote(
            MemoryCandidate(
                tenant_id=tenant.pk,
                type=memory_type,
                text=f"A {memory_type} kept in the {scope_kind} scope about parcels.",
                scope_kind=scope_kind,
                scope_id=scope_id,
                actor="process:test",
            )
        )
    client = signed_in(tenant)
    week = client.get("/").content.decode().split('data-testid="week-changes"')[1].split("</div>")[0]

    tab_total = agent_memory_list(tenant_id=tenant.pk, agent_id=agent.pk).total
    notes_total = agent_memory_list(tenant_id=tenant.pk, agent_id=agent.pk, written_by="agent").total
    assert (tab_total, notes_total) == (1, 2)
    assert f"Agent memories: {tab_total} added." in week
    assert f"Written by agents: {notes_total} notes added." in week
    assert reverse("intelligence-notes", args=[agent.pk]) in week
    notes_page = client.get(reverse("intelligence-notes", args=[agent.pk])).content.decode()
    assert f"{notes_total} notes" in notes_page
    assert "Client Brain" not in week  # nothing of the dashboard's was added
