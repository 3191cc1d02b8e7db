"""Issue 17, the Intelligence tab as operators read it: a memory's history in words with its injections and the
traces that injected it, one vocabulary of labels, Add Memory starting low, one status menu per row, and the
Traces page."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from brain.api import agent_memory_list, apply_evaluator_verdict
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


def test_add_memory_starts_at_pattern_and_offers_provider_and_campaign_scopes_to_every_agent(tenant):
    """Issue 28, item 6: the spec's Add Memory offers a provider and campaign IDs as scope whatever the agent's
    kind ("Memories with narrow scopes are only injected when the conversation or action matches"), and says,
    for a rule, that a narrow scope limits where it applies (DESIGN.md, decision 11)."""
    client = signed_in(tenant)
    knowledge = make_agent(tenant, name="Helpdesk", kind="knowledge")
    action = make_agent(tenant, name="Ads", kind="action")
    for agent in (knowledge, action):
        page = client.get(reverse("intelligence-memory-add", args=[agent.pk])).content.decode()
        checked = re.findall(r'<input type="radio" name="strength" value="(\w+)"[^>]*checked', page)
        assert checked == ["heuristic"]
        assert "never injected" in page and "only when the conversation is about it" in page
        assert 'name="provider"' in page and 'name="campaign_ids"' in page
        note = re.search(r'data-testid="rule-scope-note"[^>]*>(.*?)</', page, re.S).group(1)
        assert "A rule with a narrow scope" in note and "only where its scope matches" in note


def test_a_knowledge_agents_scoped_rule_is_injected_only_where_its_scope_matches(tenant):
    """The scope the form now offers a knowledge agent works: a rule scoped to a provider reaches a context call
    for that provider and no other (decision 11); the preview offers the same scope fields to try it."""
    client = signed_in(tenant)
    agent = make_agent(tenant, name="Helpdesk", kind="knowledge")
    response = client.post(
        reverse("intelligence-memory-add", args=[agent.pk]),
        {
            "category": "instruction",
            "strength": "hard_rule",
            "status": "active",
            "content": "Quote Meta ad spend excluding VAT.",
            "provider": "meta_ads",
            "campaign_ids": "",
            "tags": "",
        },
        follow=True,
    )
    assert response.status_code == 200
    [rule] = agent_memory_list(tenant_id=tenant.pk, agent_id=agent.pk).items
    assert rule.provider == "meta_ads" and rule.strength == "hard_rule"
    preview = client.get(reverse("intelligence-preview", args=[agent.pk])).content.decode()
    assert 'name="provider"' in preview and 'name="campaign_ids"' in preview

    def injected(provider):
        request = services.ContextRequest(conversation="How much did we spend?", provider=provider)
        return services.agent_context_build(agent=agent, request=request)[2].injected_memory_ids

    assert rule.id in injected("meta_ads")
    assert rule.id not in injected("google_ads") and rule.id not in injected("")


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
