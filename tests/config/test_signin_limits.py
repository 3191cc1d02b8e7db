"""Sign-in is rate limited (issue 15, finding 6): per username and per address, with a clear message on
the login page and a lock-out that ends. The limits are the shipped defaults: 10 failures, 15 minutes."""

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.urls import reverse
from django.utils import timezone

from tests.tickets.factories import UserFactory

PASSWORD = "pw-for-tests-1"  # the factories' password
LIMIT = 10


@pytest.fixture
def alice(db):
    return UserFactory(username="alice")


def sign_in(client, username: str, password: str, address: str = "10.0.0.1"):
    return client.post(reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address)


def signed_in(response) -> bool:
    return response.status_code == 302 and response["Location"] == reverse("home")


def test_the_right_password_is_refused_after_ten_wrong_ones_with_a_clear_message(client, alice):
    answers = [sign_in(client, "alice", f"wrong-{i}") for i in range(LIMIT)]
    assert [a.status_code for a in answers[: LIMIT - 1]] == [200] * (LIMIT - 1)  # the form, with its error
    locked = sign_in(client, "alice", PASSWORD)
    assert locked.status_code == 429
    assert not signed_in(locked)
    page = locked.content.decode()
    assert 'data-testid="signin-locked"' in page
    assert "Too many failed sign-ins" in page and "15 minutes" in page
    assert 'name="username"' in page  # still the login page, not a bare error


def test_nine_wrong_passwords_do_not_lock_out(client, alice):
    for i in range(LIMIT - 1):
        sign_in(client, "alice", f"wrong-{i}")
    assert signed_in(sign_in(client, "alice", PASSWORD))


def test_the_limit_is_per_username_from_many_addresses(client, alice):
    for i in range(LIMIT):
        sign_in(client, "alice", f"wrong-{i}", address=f"10.0.1.{i}")
    assert sign_in(client, "alice", PASSWORD, address="10.0.2.1").status_code == 429


def test_the_limit_is_per_address_across_usernames(client, alice):
    for i in range(LIMIT):
        sign_in(client, f"guess-{i}", "wrong", address="10.0.3.3")
    assert sign_in(client, "alice", PASSWORD, address="10.0.3.3").status_code == 429
    assert signed_in(sign_in(client, "alice", PASSWORD, address="10.0.4.4"))  # another address is not locked


def test_the_lock_out_ends_after_fifteen_minutes(client, alice):
    for i in range(LIMIT):
        sign_in(client, "alice", f"wrong-{i}")
    assert sign_in(client, "alice", PASSWORD).status_code == 429
    # Fifteen minutes pass: the failures' clock is the attempt time axes stored.
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=15, seconds=1))
    assert signed_in(sign_in(client, "alice", PASSWORD))


def test_the_admin_sign_in_is_limited_too(client, alice):
    alice.is_staff = True
    alice.save(update_fields=["is_staff"])
    for i in range(LIMIT):
        client.post(reverse("admin:login"), {"username": "alice", "password": f"wrong-{i}"})
    response = client.post(reverse("admin:login"), {"username": "alice", "password": PASSWORD})
    assert response.status_code == 429


def sign_in_via(client, username, password, peer, forwarded):
    return client.post(
        reverse("login"),
        {"username": username, "password": password},
        REMOTE_ADDR=peer,
        HTTP_X_FORWARDED_FOR=forwarded,
    )


def test_behind_a_trusted_proxy_the_lock_out_counts_the_forwarded_client_address(client, alice, settings):
    """Issue 29: behind a proxy every sign-in has the proxy's address, so one client locked everybody out."""
    settings.TRUSTED_PROXIES = ["10.9.9.9"]
    for i in range(LIMIT):
        sign_in_via(client, f"guess-{i}", "wrong", peer="10.9.9.9", forwarded="203.0.113.7")
    assert sign_in_via(client, "alice", PASSWORD, "10.9.9.9", "203.0.113.7").status_code == 429
    # Another client behind the same proxy is not locked out.
    assert signed_in(sign_in_via(client, "alice", PASSWORD, "10.9.9.9", "198.51.100.4"))


def test_a_forwarded_address_from_an_untrusted_peer_is_ignored(client, alice, settings):
    """A client that sends its own X-Forwarded-For (a new address per try) is still counted by its own."""
    settings.TRUSTED_PROXIES = ["10.9.9.9"]
    for i in range(LIMIT):
        sign_in_via(client, f"guess-{i}", "wrong", peer="192.0.2.50", forwarded=f"203.0.113.{i}")
    assert sign_in_via(client, "alice", PASSWORD, "192.0.2.50", "198.51.100.4").status_code == 429
    # Through the trusted proxy, a chain the client started itself counts the address the proxy saw.
    for i in range(LIMIT):
        sign_in_via(client, f"other-{i}", "wrong", peer="10.9.9.9", forwarded=f"6.6.6.{i}, 198.51.100.77")
    assert sign_in_via(client, "alice", PASSWORD, "10.9.9.9", "1.1.1.1, 198.51.100.77").status_code == 429
