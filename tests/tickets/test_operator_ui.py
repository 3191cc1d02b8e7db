"""The operator UI shell: sign in, the tenant in view, switching tenants, members and API keys pages."""

import re

from django.urls import reverse

from tests.conftest import make_member
from tickets.tenancy.models import ApiKey, Membership, Role


def test_signing_in_shows_the_tenant_in_view(client, tenant):
    make_member(tenant, Role.OPERATOR, username="op")
    response = client.post(reverse("login"), {"username": "op", "password": "pw-for-tests-1"}, follow=True)
    assert response.status_code == 200
    html = response.content.decode()
    assert "Acme Support" in html and "Sign out" in html


def test_pages_require_sign_in(client, db):
    response = client.get(reverse("home"))
    assert response.status_code == 302 and reverse("login") in response["Location"]


def test_switching_tenant_changes_the_tenant_in_view(client, tenant, other_tenant):
    user = make_member(tenant, Role.OPERATOR, username="both")
    Membership.objects.create(tenant=other_tenant, user=user, role=Role.VIEWER)
    client.force_login(user)
    response = client.post(reverse("switch-tenant"), {"tenant_id": other_tenant.pk, "next": "/"}, follow=True)
    assert "Switched tenant." in response.content.decode()
    assert response.context["current_tenant"] == other_tenant
    assert response.context["current_role"] == Role.VIEWER


def test_switching_to_a_tenant_you_do_not_belong_to_is_refused(client, tenant, other_tenant):
    client.force_login(make_member(tenant, Role.ADMIN))
    response = client.post(reverse("switch-tenant"), {"tenant_id": other_tenant.pk}, follow=True)
    assert "not a member" in response.content.decode()
    assert response.context["current_tenant"] == tenant


def test_switch_ignores_an_offsite_next_url(client, tenant):
    client.force_login(make_member(tenant, Role.ADMIN))
    response = client.post(
        reverse("switch-tenant"), {"tenant_id": tenant.pk, "next": "https://evil.example/"}
    )
    assert response["Location"] == reverse("home")


def test_creating_a_key_in_the_ui_shows_the_secret_once(client, tenant):
    client.force_login(make_member(tenant, Role.ADMIN))
    response = client.post(
        reverse("tenant-api-keys"), {"name": "Support agent", "role": "operator"}, follow=True
    )
    assert response.redirect_chain == [(reverse("tenant-api-keys"), 302)]  # POST/redirect/GET
    html = response.content.decode()
    full_key = re.search(r"brn_[0-9a-f]{8}_[\w-]+", html).group(0)
    assert "will not be shown again" in html
    assert full_key not in client.get(reverse("tenant-api-keys")).content.decode()
    assert ApiKey.objects.for_tenant(tenant).get().matches(full_key.split("_", 2)[2])


def test_the_key_form_shows_its_errors(client, tenant):
    client.force_login(make_member(tenant, Role.ADMIN))
    html = client.post(reverse("tenant-api-keys"), {"name": "", "role": "operator"}).content.decode()
    assert "fix the errors below" in html and "This field is required" in html


def test_revoking_a_key_in_the_ui_asks_first_then_says_so(client, tenant):
    """Issue 28, item 8: a confirmation before revoking a key, without JavaScript: the list's Revoke leads to a
    page that names the key, and only its form (confirm=yes) revokes; a message follows."""
    from tickets.tenancy import services

    key, _ = services.api_key_create(tenant=tenant, name="old")
    client.force_login(make_member(tenant, Role.ADMIN))
    url = reverse("tenant-api-key-revoke", args=[key.pk])
    listing = client.get(reverse("tenant-api-keys")).content.decode()
    assert f'href="{url}"' in listing and "Revoke…" in listing
    for first in (client.get(url), client.post(url)):  # the list's link, or a form posted without the field
        html = first.content.decode()
        assert first.status_code == 200 and "Revoke the key “old”?" in html
        assert 'name="confirm" value="yes"' in html and f'action="{url}"' in html
        assert 'data-testid="cancel"' in html and "will get 401 at once" in html
        key.refresh_from_db()
        assert key.revoked_at is None
    assert client.post(url, {"confirm": "no"}).status_code == 200
    key.refresh_from_db()
    assert key.revoked_at is None
    response = client.post(url, {"confirm": "yes"}, follow=True)
    assert response.redirect_chain == [(reverse("tenant-api-keys"), 302)]
    assert "Revoked key “old”" in response.content.decode()
    key.refresh_from_db()
    assert key.revoked_at is not None
    # A revoked key has nothing left to confirm: back to the list, which says so.
    again = client.get(url, follow=True)
    assert again.redirect_chain == [(reverse("tenant-api-keys"), 302)]
    assert "The key “old” was already revoked" in again.content.decode()


def test_removing_a_member_asks_first_then_says_so(client, tenant):
    """Issue 28, item 8: a confirmation before removing a member, without JavaScript."""
    client.force_login(make_member(tenant, Role.ADMIN))
    membership = Membership.objects.for_tenant(tenant).get(
        user=make_member(tenant, Role.VIEWER, username="leaver")
    )
    url = reverse("tenant-member-remove", args=[membership.pk])
    listing = client.get(reverse("tenant-members")).content.decode()
    assert f'href="{url}"' in listing and "Remove…" in listing
    # The list's link, a form posted without the field, and the old change form's action=remove all ask first.
    change = reverse("tenant-member-change", args=[membership.pk])
    for first in (client.get(url), client.post(url), client.post(change, {"action": "remove"}, follow=True)):
        html = first.content.decode()
        assert first.status_code == 200 and "Remove leaver from Acme Support?" in html
        assert 'name="confirm" value="yes"' in html and f'action="{url}"' in html
        assert Membership.objects.for_tenant(tenant).filter(pk=membership.pk).exists()
    response = client.post(url, {"confirm": "yes"}, follow=True)
    assert response.redirect_chain == [(reverse("tenant-members"), 302)]
    assert "Removed leaver from Acme Support." in response.content.decode()
    assert not Membership.objects.for_tenant(tenant).filter(pk=membership.pk).exists()


def test_removing_the_last_admin_is_refused_after_confirming(client, tenant):
    admin = make_member(tenant, Role.ADMIN, username="only-admin")
    client.force_login(admin)
    membership = Membership.objects.for_tenant(tenant).get(user=admin)
    url = reverse("tenant-member-remove", args=[membership.pk])
    response = client.post(url, {"confirm": "yes"}, follow=True)
    assert response.redirect_chain == [(reverse("tenant-members"), 302)]
    assert 'class="error"' in response.content.decode()
    assert Membership.objects.for_tenant(tenant).filter(pk=membership.pk).exists()


def test_another_tenants_member_cannot_be_removed(client, tenant, other_tenant):
    client.force_login(make_member(tenant, Role.ADMIN))
    theirs = Membership.objects.for_tenant(other_tenant).get(
        user=make_member(other_tenant, Role.VIEWER, username="theirs")
    )
    url = reverse("tenant-member-remove", args=[theirs.pk])
    assert client.get(url).status_code == 404
    assert client.post(url, {"confirm": "yes"}).status_code == 404
    assert Membership.objects.for_tenant(other_tenant).filter(pk=theirs.pk).exists()


def test_another_tenants_key_cannot_be_revoked_from_the_ui(client, tenant, other_tenant):
    from tickets.tenancy import services

    key, _ = services.api_key_create(tenant=other_tenant, name="theirs")
    client.force_login(make_member(tenant, Role.ADMIN))
    url = reverse("tenant-api-key-revoke", args=[key.pk])
    assert client.get(url).status_code == 404
    assert client.post(url, {"confirm": "yes"}).status_code == 404
    key.refresh_from_db()
    assert key.revoked_at is None


def test_operators_and_viewers_cannot_open_admin_pages(client, tenant):
    for role in (Role.OPERATOR, Role.VIEWER):
        client.force_login(make_member(tenant, role))
        assert client.get(reverse("tenant-api-keys")).status_code == 403
        assert client.get(reverse("tenant-members")).status_code == 403


def test_admins_change_roles_of_members(client, tenant):
    client.force_login(make_member(tenant, Role.ADMIN))
    membership = Membership.objects.for_tenant(tenant).get(
        user=make_member(tenant, Role.VIEWER, username="newbie")
    )
    response = client.post(
        reverse("tenant-member-change", args=[membership.pk]), {"role": "operator"}, follow=True
    )
    assert "newbie is now operator" in response.content.decode()
