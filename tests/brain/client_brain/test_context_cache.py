"""The Client Brain context kept per memory state (issue 30, section 0): the same words at the same state are
served from the per-process cache; any write to a Client Brain row of the tenant changes the next answer."""

import pytest
from django.urls import reverse

from brain.api import client_brain_context_preview
from brain.models import Memory
from tests.intelligence.factories import make_agent

from ..factories import fact

pytestmark = pytest.mark.django_db


def preview(tenant, subject="Warranty question", message="Is my blender covered?"):
    return client_brain_context_preview(tenant_id=tenant.id, subject=subject, latest_customer_message=message)


def test_the_same_words_at_the_same_state_are_served_from_the_cache(tenant, django_assert_num_queries):
    fact(tenant, "Warranty claims need the original receipt")
    first = preview(tenant)
    with django_assert_num_queries(2):  # the tenant's row and the scope's state: no row is read again
        again = preview(tenant)
    assert again is first
    # Other words are another answer, assembled afresh.
    assert preview(tenant, subject="Shipping question", message="Where is my parcel?") is not first


def test_a_new_row_changes_the_next_answer(tenant):
    fact(tenant, "Warranty claims need the original receipt")
    before = preview(tenant)
    added = fact(tenant, "Blender warranty covers two years of use")
    after = preview(tenant)
    assert added.id not in before.memory_ids and added.id in after.memory_ids


def test_a_changed_or_archived_row_changes_the_next_answer(tenant):
    row = fact(tenant, "Warranty claims need the original receipt")
    assert row.id in preview(tenant).memory_ids
    Memory.objects.for_tenant(tenant.id).filter(pk=row.pk).update(
        payload={"fact": "Warranty claims need a photo of the receipt"},
        text="Warranty claims need a photo of the receipt",
    )
    assert "a photo of the receipt" in preview(tenant).prompt
    Memory.objects.for_tenant(tenant.id).filter(pk=row.pk).update(status="archived")
    assert row.id not in preview(tenant).memory_ids


def test_the_context_call_sees_a_client_brain_write_made_between_two_identical_calls(api, tenant):
    agent = make_agent(tenant)
    fact(tenant, "Acme ships refurbished laptops from Lyon within two days.")
    url = reverse("agent-context", kwargs={"agent_pk": agent.pk})
    body = {"conversation": "Do refurbished laptops ship from Lyon?"}
    first = api.post(url, body, format="json").json()
    added = fact(tenant, "Refurbished laptops from Lyon come with a charger.")
    second = api.post(url, body, format="json").json()
    brand = next(s for s in second["sections"] if s["name"] == "brand")
    assert added.id not in first["injected_memory_ids"] and added.id in brand["memory_ids"]
    assert f"[mem:{added.id}]" in second["prompt"]
