"""Issue 17, the Intelligence tab as operators read it: a memory's history in words with its injections and the
traces that injected it, one vocabulary of labels, Add Memory starting low, one status menu per row, and the
Traces page."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from brain.api import apply_evaluator_verdict
from intelligence import services
from tests.conftest import make_member
from tickets.tenancy.models import Role

from .factories import add_memory, make_agent

pytestmark = pytest.mark.django_db


def signed_in(tenant, role=Role.OPERATOR, username="olivia") -> Client:
    client = Client()
    client.force_login(make_member(tenant, role, username=username))
    return client


def run_context(agent, conversation: str):
    _, _, trace = services.agent_context_build(
        agent=agent, request=services.ContextRequest(conversation=conversation)
    )
    return trace


def test_memory_page_shows_injections_traces_and_history_in_words(tenant):
    client = signed_in(tenant)
    agent = make_agent(tenant, name="Support agent")
    rule = add_memory(agent, "Never promise a refund before the order is checked.")
    first = run_context(agent, "Can I get a refund?")
    second = run_context(agent, "Where is my parcel?")
    apply_evaluator_verdict(
        tenant_id=tenant.pk,
        judged=f"trace:{second.pk}",
        verdict="pass",
        response_text=f"We check the order first [mem:{rule}].",
        injected_by_trace={f"trace:{second.pk}": [rule]},
    )
    client.post(reverse("intelligence-memory-status", args=[agent.pk, rule]), {"status": "stale"})

    page = client.get(reverse("intelligence-memory", args=[agent.pk, rule])).content.decode()
    assert '<strong data-testid="injection-count">2</strong> times' in page
    assert (
        f'data-testid="injected-by-{first.pk}"' in page and f'data-testid="injected-by-{second.pk}"' in page
    )
    assert 'data-testid="history-verdict"' in page and "Verdict:" in page
    assert "Status active → <strong>stale</strong>" in page
    assert ">olivia<" in page  # who changed it, by name, not "user:7"
    assert "user:" not in page.split('id="history"')[1]


def test_previews_do_not_count_as_injections(tenant):
    client = signed_in(tenant)
    agent = make_agent(tenant)
    rule = add_memory(agent, "Always greet the customer by name.")
    client.post(reverse("intelligence-preview", args=[agent.pk]), {"conversation": "Hello"})
    page = client.get(reverse("intelligence-memory", args=[agent.pk, rule])).content.decode()
    assert '<span data-testid="injection-count">never</span>' in page


def test_one_vocabulary_and_scope_apart_from_tags(tenant):
    client = signed_in(tenant)
    agent = make_agent(tenant, name="Ads", kind="action")
    pattern = add_memory(
        agent, "Meta campaigns learn for a week.", strength="heuristic", provider="meta_ads", tags=["meta"]
    )
    page = client.get(reverse("intelligence-tab", args=[agent.pk])).content.decode()
    row = page.split(f'data-testid="memory-row-{pattern}"')[1].split("</tr>")[0]
    # The label, the stored value on hover only (issue 28, item 5: not "Pattern heuristic").
    assert (
        f'data-testid="strength-{pattern}"><span class="coded" title="heuristic" data-code="heuristic">Pattern</span></span>'
        in row
    )
    cells = row.split("<td")
    scope_cell = next(c for c in cells if 'class="scope"' in c)
    assert 'title="meta_ads" data-code="meta_ads">Meta Ads</span>' in scope_cell and "#meta" not in scope_cell
    # One status menu per row, not a row of buttons.
    assert row.count("<form") == 1 and f'data-testid="status-select-{pattern}"' in row


def test_add_memory_starts_at_pattern_and_offers_provider_scope_only_to_action_agents(tenant):
    client = signed_in(tenant)
    knowledge = make_agent(tenant, name="Helpdesk", kind="knowledge")
    action = make_agent(tenant, name="Ads", kind="action")
    page = client.get(reverse("intelligence-memory-add", args=[knowledge.pk])).content.decode()
    checked = re.findall(r'<input type="radio" name="strength" value="(\w+)"[^>]*checked', page)
    assert checked == ["heuristic"]
    assert "never injected" in page and "only when the conversation is about it" in page
    assert 'name="provider"' not in page and 'name="campaign_ids"' not in page
    page = client.get(reverse("intelligence-memory-add", args=[action.pk])).content.decode()
    assert 'name="provider"' in page and 'name="campaign_ids"' in page


def test_traces_page_opens_what_was_injected_and_left_out(tenant):
    client = signed_in(tenant)
    agent = make_agent(tenant)
    rule = add_memory(agent, "Never share another customer's order.")
    note = add_memory(agent, "The warehouse moved in 2023.", strength="context_note", category="fact")
    trace = run_context(agent, "Where is my order?")
    page = client.get(reverse("intelligence-traces", args=[agent.pk])).content.decode()
    block = page.split(f'data-testid="trace-{trace.pk}"')[1].split("</details>")[0]
    assert f'data-testid="chip-{rule}"' in block
    omitted = block.split(f'data-testid="trace-{trace.pk}-omitted-note_never_injected"')[1]
    assert f'data-testid="chip-{note}"' in omitted and "never injected" in block


def test_traces_page_is_empty_with_directions(tenant):
    client = signed_in(tenant, Role.VIEWER, username="vera")
    agent = make_agent(tenant)
    page = client.get(reverse("intelligence-traces", args=[agent.pk])).content.decode()
    assert "No runtime calls yet" in page and f"/api/v1/agents/{agent.pk}/context" in page
