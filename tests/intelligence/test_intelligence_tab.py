"""The Intelligence tab: operators add, edit, activate, supersede; viewers read only; tenants never mix."""

import pytest
from django.test import Client
from django.urls import reverse

from brain.api import agent_memory_get
from intelligence.models import Agent
from tests.conftest import make_member
from tickets.tenancy.models import Role

from .factories import add_memory, make_agent

pytestmark = pytest.mark.django_db


def signed_in(tenant, role=Role.OPERATOR, username=None) -> Client:
    client = Client()
    client.force_login(make_member(tenant, role, username=username))
    return client


@pytest.fixture
def operator(tenant):
    return signed_in(tenant)


@pytest.fixture
def agent(tenant):
    return make_agent(tenant, name="Ads optimiser", kind="action")


def test_agents_list_and_create(operator, tenant):
    empty = operator.get(reverse("intelligence-agents"))
    assert "No agents yet" in empty.content.decode()
    response = operator.post(
        reverse("intelligence-agents"), {"name": "Helpdesk bot", "kind": "knowledge"}, follow=True
    )
    agent = Agent.objects.for_tenant(tenant).get(name="Helpdesk bot")
    assert response.redirect_chain[-1][0] == reverse("intelligence-tab", args=[agent.pk])
    assert "Created agent" in response.content.decode()
    assert agent.learning_config["evaluate_after_hours"] == 48
    duplicate = operator.post(reverse("intelligence-agents"), {"name": "Helpdesk bot", "kind": "knowledge"})
    assert "already has this name" in duplicate.content.decode()


def test_add_memory_follows_the_spec_steps_and_defaults_to_draft(operator, agent):
    form = operator.get(reverse("intelligence-memory-add", args=[agent.pk])).content.decode()
    assert 'value="draft" selected' in form
    response = operator.post(
        reverse("intelligence-memory-add", args=[agent.pk]),
        {
            "category": "instruction",
            "strength": "hard_rule",
            "status": "draft",
            "content": "Never raise a daily budget by more than 20 percent.",
            "provider": "meta_ads",
            "campaign_ids": "c-1, c-2",
            "tags": "budget",
        },
        follow=True,
    )
    page = response.content.decode()
    assert "Memory [mem:" in page and "added (draft)" in page
    memory_id = int(page.split("Memory [mem:")[1].split("]")[0])
    record = agent_memory_get(tenant_id=agent.tenant_id, agent_id=agent.pk, memory_id=memory_id)
    assert (record.status, record.source, record.provider, record.campaign_ids, record.tags) == (
        "draft",
        "manual",
        "meta_ads",
        ["c-1", "c-2"],
        ["budget"],
    )


def test_add_memory_form_shows_errors(operator, agent):
    response = operator.post(
        reverse("intelligence-memory-add", args=[agent.pk]), {"category": "nonsense", "strength": "hard_rule"}
    )
    page = response.content.decode()
    assert "The memory was not added; fix the errors below." in page
    assert "Select a valid choice" in page and "This field is required" in page


def test_add_memory_goes_through_the_gate(operator, agent):
    response = operator.post(
        reverse("intelligence-memory-add", args=[agent.pk]),
        {"category": "fact", "strength": "hard_rule", "status": "active", "content": "ok"},
    )
    page = response.content.decode()
    assert "The formation gate rejected this memory" in page
    assert agent_memory_count(agent) == 0


def agent_memory_count(agent):
    from brain.api import agent_memory_list

    return agent_memory_list(tenant_id=agent.tenant_id, agent_id=agent.pk).total


def test_status_changes_activate_mark_stale_archive(operator, agent):
    memory_id = add_memory(agent, "Pause ads that spend without conversions for three days.", status="draft")
    url = reverse("intelligence-memory-status", args=[agent.pk, memory_id])
    for status, message in (("active", "Activated"), ("stale", "Marked stale"), ("archived", "Archived")):
        response = operator.post(url, {"status": status}, follow=True)
        assert f"{message} [mem:{memory_id}]" in response.content.decode()
        assert (
            agent_memory_get(tenant_id=agent.tenant_id, agent_id=agent.pk, memory_id=memory_id).status
            == status
        )
    bad = operator.post(url, {"status": "superseded"}, follow=True)
    assert "Unknown status" in bad.content.decode()


def test_edit_memory(operator, agent):
    memory_id = add_memory(agent, "Report conversions weekly.", strength="preference", category="preference")
    response = operator.post(
        reverse("intelligence-memory-edit", args=[agent.pk, memory_id]),
        {
            "category": "preference",
            "strength": "heuristic",
            "content": "Report conversions every Monday.",
            "tags": "reporting",
        },
        follow=True,
    )
    assert f"Saved [mem:{memory_id}]" in response.content.decode()
    record = agent_memory_get(tenant_id=agent.tenant_id, agent_id=agent.pk, memory_id=memory_id)
    assert (record.text, record.strength, record.tags) == (
        "Report conversions every Monday.",
        "heuristic",
        ["reporting"],
    )


def test_supersede_shows_the_chain(operator, agent):
    old_id = add_memory(agent, "Target CPA is 40 euros for the spring campaign.")
    response = operator.post(
        reverse("intelligence-memory-supersede", args=[agent.pk, old_id]),
        {"content": "Target CPA is 35 euros for the spring campaign.", "status": "active"},
        follow=True,
    )
    page = response.content.decode()
    new_id = int(page.split("superseded by [mem:")[1].split("]")[0])
    assert f'data-testid="chain-{old_id}"' in page and f'data-testid="chain-{new_id}"' in page
    assert page.index(f"chain-{old_id}") < page.index(f"chain-{new_id}")
    old = agent_memory_get(tenant_id=agent.tenant_id, agent_id=agent.pk, memory_id=old_id)
    assert (old.status, old.superseded_by_id) == ("superseded", new_id)


def test_filters_and_search(operator, agent):
    rule = add_memory(agent, "Never bid on competitor brand keywords.")
    note = add_memory(
        agent, "Client prefers weekly email summaries.", strength="context_note", category="fact"
    )
    scoped = add_memory(
        agent, "TikTok creatives must be vertical.", strength="heuristic", provider="tiktok_ads"
    )
    url = reverse("intelligence-tab", args=[agent.pk])

    def shown(**params):
        page = operator.get(url, params).content.decode()
        return {m for m in (rule, note, scoped) if f'data-testid="memory-row-{m}"' in page}

    assert shown() == {rule, note, scoped}
    assert shown(strength="context_note") == {note}
    assert shown(category="fact") == {note}
    assert shown(scope="tiktok_ads") == {scoped}
    assert shown(scope="unscoped") == {rule, note}
    assert shown(q="competitor") == {rule}
    assert shown(status="draft") == set()
    assert "No memory matches these filters" in operator.get(url, {"status": "draft"}).content.decode()


def test_memories_are_paginated(operator, agent):
    for i in range(23):
        add_memory(agent, f"Rule number {i}: campaign {i} names carry the region code R{i}.")
    first = operator.get(reverse("intelligence-tab", args=[agent.pk])).content.decode()
    assert first.count('data-testid="memory-row-') == 20 and "Page 1 of 2" in first
    second = operator.get(reverse("intelligence-tab", args=[agent.pk]), {"page": 2}).content.decode()
    assert second.count('data-testid="memory-row-') == 3


def test_learning_settings_form_validates_and_saves(operator, agent):
    url = reverse("intelligence-learning", args=[agent.pk])
    saved = operator.post(
        url,
        {
            "learn_from_rejected_recommendations": "on",
            "evaluate_after_hours": "168",
            "learning_window_days": "90",
            "recency_bias": "strong",
        },
        follow=True,
    )
    assert "Saved the learning settings" in saved.content.decode()
    agent.refresh_from_db()
    assert agent.learning_config == {
        "learn_from_approved_actions": False,
        "learn_from_rejected_recommendations": True,
        "evaluate_after_hours": 168,
        "learning_window_days": 90,
        "recency_bias": "strong",
        "suggestion_feedback_threshold": 3,
    }
    bad = operator.post(url, {"evaluate_after_hours": "12", "recency_bias": "strong"})
    assert "learning settings were not saved" in bad.content.decode()
    assert "Select a valid choice" in bad.content.decode()


def test_budget_preview_shows_sections_chars_and_omissions(operator, agent):
    rule = add_memory(agent, "Never pause a campaign during a product launch week.")
    draft = add_memory(agent, "Always mention the loyalty programme.", status="draft")
    google = add_memory(
        agent, "Google Ads bids change at most once a day.", strength="heuristic", provider="google_ads"
    )
    # The conversation is POSTed (customer text stays out of URLs); the view stores no trace.
    page = operator.post(
        reverse("intelligence-preview", args=[agent.pk]),
        {"conversation": "Should we pause the campaign?", "provider": "meta_ads"},
    ).content.decode()
    assert f"[mem:{rule}] &quot;Never pause a campaign" in page  # quoted as data: two quotes, one newline
    assert 'data-testid="context-bar"' in page and f'data-testid="chip-{rule}"' in page
    assert (
        'data-testid="section-hard_rule"' in page
        and f"{len(f'[mem:{rule}] ') + len('Never pause a campaign during a product launch week.') + 3} / 1500"
        in page
    )
    assert f'data-testid="omitted-{google}" data-reason="scope_provider_mismatch"' in page
    assert "scoped to another provider than this conversation" in page  # the reason in words
    assert "1 draft" in page
    assert f"[mem:{draft}]" not in page


def test_viewer_reads_but_cannot_change_anything(tenant, agent):
    viewer = signed_in(tenant, Role.VIEWER, username="just-looking")
    memory_id = add_memory(agent, "Keep the brand name in every headline.", status="draft")
    page = viewer.get(reverse("intelligence-tab", args=[agent.pk])).content.decode()
    assert "Keep the brand name" in page and "Add Memory" not in page and "Activate" not in page
    assert (
        viewer.post(reverse("intelligence-preview", args=[agent.pk]), {"conversation": "hi"}).status_code
        == 200
    )
    assert viewer.get(reverse("intelligence-traces", args=[agent.pk])).status_code == 200
    posts = [
        (reverse("intelligence-agents"), {"name": "x", "kind": "knowledge"}),
        (
            reverse("intelligence-memory-add", args=[agent.pk]),
            {"category": "fact", "strength": "hard_rule", "status": "active", "content": "Viewer memory"},
        ),
        (reverse("intelligence-memory-status", args=[agent.pk, memory_id]), {"status": "active"}),
        (
            reverse("intelligence-memory-edit", args=[agent.pk, memory_id]),
            {"category": "fact", "strength": "hard_rule", "content": "changed by viewer"},
        ),
        (
            reverse("intelligence-memory-supersede", args=[agent.pk, memory_id]),
            {"content": "replaced by viewer"},
        ),
        (
            reverse("intelligence-learning", args=[agent.pk]),
            {"evaluate_after_hours": "24", "recency_bias": "none"},
        ),
    ]
    for url, data in posts:
        assert viewer.post(url, data).status_code == 403, url
    record = agent_memory_get(tenant_id=agent.tenant_id, agent_id=agent.pk, memory_id=memory_id)
    assert (record.status, record.text) == ("draft", "Keep the brand name in every headline.")
    assert agent_memory_count(agent) == 1


def test_every_intelligence_view_is_tenant_isolated(tenant, other_tenant, agent):
    memory_id = add_memory(agent, "Spend caps are confidential.")
    intruder = signed_in(other_tenant, Role.ADMIN, username="intruder")
    gets = [
        reverse("intelligence-tab", args=[agent.pk]),
        reverse("intelligence-memory-add", args=[agent.pk]),
        reverse("intelligence-memory", args=[agent.pk, memory_id]),
        reverse("intelligence-preview", args=[agent.pk]),
        reverse("intelligence-traces", args=[agent.pk]),
    ]
    for url in gets:
        response = intruder.get(url)
        assert response.status_code == 404, url
        assert "Spend caps" not in response.content.decode()
    posts = [
        reverse("intelligence-memory-add", args=[agent.pk]),
        reverse("intelligence-memory-status", args=[agent.pk, memory_id]),
        reverse("intelligence-memory-edit", args=[agent.pk, memory_id]),
        reverse("intelligence-memory-supersede", args=[agent.pk, memory_id]),
        reverse("intelligence-learning", args=[agent.pk]),
        reverse("intelligence-budget", args=[agent.pk]),
    ]
    for url in posts:
        assert (
            intruder.post(
                url, {"status": "archived", "content": "x", "category": "fact", "strength": "hard_rule"}
            ).status_code
            == 404
        ), url
    assert "Ads optimiser" not in intruder.get(reverse("intelligence-agents")).content.decode()
    # Their own agent cannot reach this tenant's memory either.
    their_agent = make_agent(other_tenant, name="Theirs")
    assert intruder.get(reverse("intelligence-memory", args=[their_agent.pk, memory_id])).status_code == 404
    assert (
        agent_memory_get(tenant_id=agent.tenant_id, agent_id=agent.pk, memory_id=memory_id).status == "active"
    )


def test_budget_overrides_per_agent(operator, agent):
    url = reverse("intelligence-budget", args=[agent.pk])
    saved = operator.post(url, {"tier_hard_rule": "2000", "policy_reserve": ""}, follow=True)
    assert "Saved the budget overrides" in saved.content.decode()
    agent.refresh_from_db()
    assert agent.budget_overrides == {"tier_hard_rule": 2000}
    too_small = operator.post(url, {"total": "2000"})
    page = too_small.content.decode()
    assert "The budgets were not saved" in page and "must be at least" in page
    agent.refresh_from_db()
    assert agent.budget_overrides == {"tier_hard_rule": 2000}
    reset = operator.post(url, {}, follow=True)
    assert "Using the default budgets" in reset.content.decode()
    agent.refresh_from_db()
    assert agent.budget_overrides == {}


def test_editing_a_memory_into_another_ones_text_is_refused(operator, agent):
    kept = add_memory(agent, "Pause ads that spend without conversions for three days.")
    edited = add_memory(agent, "Report conversions weekly.", strength="preference", category="preference")
    response = operator.post(
        reverse("intelligence-memory-edit", args=[agent.pk, edited]),
        {
            "category": "instruction",
            "strength": "hard_rule",
            "content": "Pause ads that spend without conversions for three days.",
        },
    )
    page = response.content.decode()
    assert "The memory was not saved" in page and f"It repeats [mem:{kept}]" in page
    record = agent_memory_get(tenant_id=agent.tenant_id, agent_id=agent.pk, memory_id=edited)
    assert (record.text, record.strength) == ("Report conversions weekly.", "preference")


def test_a_superseded_memory_cannot_be_reactivated_in_the_tab(operator, agent):
    old_id = add_memory(agent, "Target CPA is 40 euros for the spring campaign.", status="draft")
    operator.post(
        reverse("intelligence-memory-supersede", args=[agent.pk, old_id]),
        {"content": "Target CPA is 35 euros for the spring campaign.", "status": "active"},
    )
    url = reverse("intelligence-memory-status", args=[agent.pk, old_id])
    response = operator.post(url, {"status": "active"}, follow=True)
    assert f"[mem:{old_id}] was superseded" in response.content.decode()
    assert (
        agent_memory_get(tenant_id=agent.tenant_id, agent_id=agent.pk, memory_id=old_id).status
        == "superseded"
    )
