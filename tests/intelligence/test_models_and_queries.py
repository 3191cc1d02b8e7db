"""Feedback fields (spec: Feedback Loop) and query-count guards on the Intelligence lists."""

import pytest
from django.db import IntegrityError, transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from intelligence.models import AgentRun, Conversation
from tests.conftest import make_member
from tickets.tenancy.models import Role

from .factories import add_memory, make_agent

pytestmark = pytest.mark.django_db


def test_feedback_rating_is_one_or_minus_one(tenant):
    agent = make_agent(tenant)
    Conversation.objects.create(tenant=tenant, agent=agent, feedback_rating=1, feedback_at=timezone.now())
    AgentRun.objects.create(
        tenant=tenant, agent=agent, feedback_rating=-1, feedback_comment="Wrong campaign."
    )
    Conversation.objects.create(tenant=tenant, agent=agent)  # no feedback yet
    for model in (Conversation, AgentRun):
        with pytest.raises(IntegrityError), transaction.atomic():
            model.objects.create(tenant=tenant, agent=agent, feedback_rating=5)


def test_agent_memory_list_api_query_count_does_not_grow_with_rows(
    api, tenant, django_assert_max_num_queries
):
    agent = make_agent(tenant)
    for i in range(30):
        add_memory(agent, f"Rule {i}: always quote order number {i} before answering.")
    with django_assert_max_num_queries(6):
        response = api.get(reverse("agent-memory-list", kwargs={"agent_pk": agent.pk}), {"limit": 30})
    assert len(response.json()["results"]) == 30


def test_agents_list_api_query_count(api, tenant, django_assert_max_num_queries):
    for i in range(15):
        make_agent(tenant, name=f"Agent {i}")
    with django_assert_max_num_queries(5):
        response = api.get(reverse("agent-list"))
    assert response.json()["count"] == 15


def test_intelligence_tab_and_agents_page_query_counts(tenant, django_assert_max_num_queries):
    client = Client()
    client.force_login(make_member(tenant, Role.VIEWER))
    agent = make_agent(tenant)
    for i in range(25):
        add_memory(agent, f"Pattern {i}: campaign {i} peaks on weekday mornings.", strength="heuristic")
    for i in range(10):
        make_agent(tenant, name=f"Other {i}")
    with django_assert_max_num_queries(14):
        assert client.get(reverse("intelligence-tab", args=[agent.pk])).status_code == 200
    with django_assert_max_num_queries(10):
        assert client.get(reverse("intelligence-agents")).status_code == 200


def test_agents_are_found_by_exact_name_in_the_keys_tenant_only(api, tenant, other_tenant):
    """Issue 28, item 2: the README's examples find the demo's agents by name (`?name=Support+assistant`)."""
    support = make_agent(tenant, name="Support assistant")
    make_agent(tenant, name="Support assistant (old)")
    make_agent(other_tenant, name="Support assistant")
    found = api.get(reverse("agent-list"), {"name": "Support assistant"}).json()
    assert [agent["id"] for agent in found["results"]] == [support.pk]
    assert api.get(reverse("agent-list"), {"name": "support"}).json()["count"] == 0
