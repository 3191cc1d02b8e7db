"""Every model has an admin page; each changelist and add form renders for staff; keys show their secret once."""

import re

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.urls import reverse


@pytest.fixture
def staff_client(client, db):
    user = get_user_model().objects.create_superuser("staff", "staff@example.com", "pw-for-tests-1")
    client.force_login(user)
    return client


def test_every_model_of_our_apps_has_an_admin():
    from django.apps import apps

    ours = [
        m
        for m in apps.get_models()
        if m._meta.app_label in {"tenancy", "tickets", "webhooks", "brain", "intelligence"}
    ]
    missing = [m.__name__ for m in ours if m not in admin.site._registry]
    assert not missing, f"register admin pages for {missing}"


@pytest.mark.parametrize(
    "model", list(admin.site._registry), ids=lambda m: f"{m._meta.app_label}.{m.__name__}"
)
def test_admin_changelist_and_add_pages_render(staff_client, model):
    opts = model._meta
    changelist = staff_client.get(reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist"))
    assert changelist.status_code == 200
    model_admin = admin.site._registry[model]
    if model_admin.has_add_permission(
        type("R", (), {"user": get_user_model()(is_superuser=True, is_active=True, is_staff=True)})()
    ):
        assert staff_client.get(reverse(f"admin:{opts.app_label}_{opts.model_name}_add")).status_code == 200


def test_creating_an_api_key_in_the_admin_shows_its_secret_once(staff_client, tenant):
    response = staff_client.post(
        reverse("admin:tenancy_apikey_add"),
        {"tenant": tenant.pk, "name": "from admin", "role": "operator"},
        follow=True,
    )
    html = response.content.decode()
    match = re.search(r"brn_[0-9a-f]{8}_[\w-]+", html)
    assert match, html[:2000]
    from tickets.tenancy.models import ApiKey

    key = ApiKey.objects.all_tenants().get(name="from admin")
    assert key.matches(match.group(0).split("_", 2)[2])
    assert (
        match.group(0)
        not in staff_client.get(reverse("admin:tenancy_apikey_change", args=[key.pk])).content.decode()
    )
