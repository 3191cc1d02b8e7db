"""Tenant isolation over every endpoint that exists: another tenant never gets data."""

import json

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from rest_framework.test import APIClient

from tests.conftest import make_member
from tests.isolation import ROUTES
from tickets.tenancy import services
from tickets.tenancy.models import Role


def api_route_names() -> set[str]:
    names: set[str] = set()

    def walk(patterns, prefix):
        for p in patterns:
            route = prefix + str(p.pattern)
            if isinstance(p, URLResolver):
                walk(p.url_patterns, route)
            elif isinstance(p, URLPattern) and route.startswith("api/v1/") and p.name:
                names.add(p.name)

    walk(get_resolver().url_patterns, "")
    return names


def test_every_api_route_is_in_the_isolation_matrix():
    missing = api_route_names() - set(ROUTES)
    assert not missing, f"add these routes to tests/isolation.py: {sorted(missing)}"


def _clients(intruder_tenant):
    """An operator key, and a signed-in admin, both of the intruding tenant."""
    _, full_key = services.api_key_create(tenant=intruder_tenant, name="intruder")
    key_client = APIClient()
    key_client.credentials(HTTP_AUTHORIZATION=f"Bearer {full_key}")
    session_client = APIClient()
    session_client.force_login(make_member(intruder_tenant, Role.ADMIN, username="intruder-admin"))
    return {"key": key_client, "session-admin": session_client}


CASES = [(name, method) for name, route in sorted(ROUTES.items()) for method in route.methods]


@pytest.mark.parametrize(("route_name", "method"), CASES)
def test_another_tenant_never_gets_data(route_name, method, tenant, other_tenant):
    route = ROUTES[route_name]
    kwargs = route.make(tenant)
    url = reverse(route_name, kwargs=kwargs)
    victim_marker = tenant.name
    for label, client in _clients(other_tenant).items():
        response = getattr(client, method.lower())(url, data=route.body, format="json")
        body = response.content.decode()
        if route.tenant_relative:
            assert victim_marker not in body, f"{label} {method} {url} leaked the victim tenant: {body[:300]}"
            assert response.status_code < 500, body[:300]
        else:
            assert response.status_code in (403, 404), (
                f"{label} {method} {url} -> {response.status_code}: {body[:300]}"
            )
            if response.status_code == 404:
                assert json.loads(body)["error"]["code"] == "not_found"


def test_missing_and_foreign_objects_answer_the_same_404(tenant, other_tenant):
    foreign_key, _ = services.api_key_create(tenant=other_tenant, name="theirs")
    admin = APIClient()
    admin.force_login(make_member(tenant, Role.ADMIN))
    foreign = admin.get(reverse("api-key-detail", kwargs={"pk": foreign_key.pk}))
    missing = admin.get(reverse("api-key-detail", kwargs={"pk": 999_999_999}))
    assert foreign.status_code == missing.status_code == 404
    assert foreign.json() == missing.json()
