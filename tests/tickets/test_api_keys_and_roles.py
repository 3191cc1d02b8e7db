"""API keys are stored hashed, revoked keys get 401; viewers read, operators edit, admins manage."""

import pytest
from django.db import connection
from django.urls import reverse
from rest_framework.test import APIClient

from tests.conftest import api_client_for_key, make_member
from tickets.tenancy import services
from tickets.tenancy.models import ApiKey, Role


def test_api_key_secret_is_stored_only_as_a_hash(tenant):
    key, full_key = services.api_key_create(tenant=tenant, name="agent")
    secret = full_key.split("_", 2)[2]
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM tickets_apikey WHERE id = %s", [key.pk])
        row = cursor.fetchone()
    assert all(secret not in str(value) for value in row)
    assert key.secret_hash != secret and len(key.secret_hash) == 64


def test_a_valid_key_authenticates_and_records_last_use(tenant, api_key):
    response = api_client_for_key(api_key).get(reverse("current-tenant"))
    assert response.status_code == 200
    assert response.json()["slug"] == "acme"
    assert ApiKey.objects.all_tenants().get(tenant=tenant).last_used_at is not None


def test_a_revoked_key_gets_401(tenant):
    key, full_key = services.api_key_create(tenant=tenant, name="agent")
    services.api_key_revoke(key=key)
    response = api_client_for_key(full_key).get(reverse("current-tenant"))
    assert response.status_code == 401
    assert "revoked" in response.json()["error"]["message"]


@pytest.mark.parametrize("header", ["Bearer nonsense", "Bearer brn_deadbeef_wrongsecret", "Bearer a b"])
def test_bad_keys_get_401_with_a_message(db, header):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=header)
    response = client.get(reverse("current-tenant"))
    assert response.status_code == 401
    assert response.json()["error"]["message"]
    assert response["WWW-Authenticate"] == "Bearer"


def test_no_credentials_get_401(db):
    assert APIClient().get(reverse("current-tenant")).status_code == 401


def test_api_key_create_returns_the_secret_once(tenant):
    admin = APIClient()
    admin.force_login(make_member(tenant, Role.ADMIN))
    created = admin.post(reverse("api-key-list"), {"name": "helpdesk"}, format="json")
    assert created.status_code == 201
    full_key = created.json()["key"]
    assert api_client_for_key(full_key).get(reverse("current-tenant")).status_code == 200
    listed = admin.get(reverse("api-key-list")).json()
    assert all("key" not in item for item in listed["results"])
    assert full_key not in str(listed)


@pytest.mark.parametrize(
    ("role", "read_tenant", "list_keys", "add_member"),
    # Nobody adds a member over the API, admins included: people join by accepting an invitation (405).
    [(Role.VIEWER, 200, 403, 403), (Role.OPERATOR, 200, 403, 403), (Role.ADMIN, 200, 200, 405)],
)
def test_viewers_read_operators_edit_admins_manage(tenant, role, read_tenant, list_keys, add_member):
    client = APIClient()
    client.force_login(make_member(tenant, role))
    make_member(tenant, Role.VIEWER, username="newcomer")
    assert client.get(reverse("current-tenant")).status_code == read_tenant
    assert client.get(reverse("api-key-list")).status_code == list_keys
    response = client.post(
        reverse("member-list"), {"username": "newcomer", "role": "operator"}, format="json"
    )
    assert response.status_code == add_member


def test_a_viewer_key_cannot_write(tenant):
    _, full_key = services.api_key_create(tenant=tenant, name="reader", role=Role.VIEWER)
    response = api_client_for_key(full_key).post(reverse("member-list"), {"username": "x"}, format="json")
    assert response.status_code == 403


def test_keys_never_manage_keys_or_members(api):
    assert api.get(reverse("api-key-list")).status_code == 403
    assert api.get(reverse("member-list")).status_code == 403


def test_the_last_admin_cannot_be_removed(tenant):
    admin_user = make_member(tenant, Role.ADMIN)
    client = APIClient()
    client.force_login(admin_user)
    membership = admin_user.memberships.get()
    response = client.delete(reverse("member-detail", kwargs={"pk": membership.pk}))
    assert response.status_code == 409
    assert "admin" in response.json()["error"]["message"]


def test_a_user_without_a_tenant_is_refused(db):
    from tests.tickets.factories import UserFactory

    client = APIClient()
    client.force_login(UserFactory(username="loner"))
    response = client.get(reverse("current-tenant"))
    assert response.status_code == 403
    assert "not a member" in response.json()["error"]["message"]


def test_viewsets_cannot_override_get_queryset():
    from tickets.tenancy.drf import TenantModelViewSet

    with pytest.raises(TypeError, match="refine_queryset"):
        type("Leaky", (TenantModelViewSet,), {"get_queryset": lambda self: None})


@pytest.mark.parametrize("method", ["get_object", "get_permissions", "get_authenticators"])
def test_the_tenancy_base_refuses_subclasses_that_override_what_it_owns(method):
    from tickets.tenancy.drf import TenantAPIView, TenantModelViewSet

    for base in (TenantModelViewSet, TenantAPIView):
        with pytest.raises(TypeError, match=method):
            type("Leaky", (base,), {method: lambda self: None})


@pytest.mark.parametrize("method", ["put", "patch"])
@pytest.mark.parametrize("body", ["null", "3", "true", '"admin"', '["role"]'])
def test_a_member_update_whose_body_is_not_an_object_is_a_400_not_a_500(tenant, method, body):
    """Issue 29: PUT / PATCH /api/v1/members/{id} with a JSON body of null, a number or true answered 500."""
    admin_user = make_member(tenant, Role.ADMIN)
    other = make_member(tenant, Role.OPERATOR)
    client = APIClient()
    client.force_login(admin_user)
    url = reverse("member-detail", kwargs={"pk": other.memberships.get().pk})
    response = getattr(client, method)(url, data=body, content_type="application/json")
    assert response.status_code == 400
    assert "role" in response.json()["error"]["message"]
