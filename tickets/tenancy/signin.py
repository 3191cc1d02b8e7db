"""What a locked-out sign-in sees, and whose address a sign-in counts against (django-axes calls both;
config/settings/signin.py sets the limits)."""

import ipaddress

from axes.helpers import get_cool_off
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone


def lockout_message(request: HttpRequest) -> str:
    cool_off = get_cool_off(request) or settings.AXES_COOLOFF_TIME
    minutes = max(1, round(cool_off.total_seconds() / 60))
    until = timezone.now() + cool_off
    return (
        f"Too many failed sign-ins ({settings.AXES_FAILURE_LIMIT}) for this username or from this address. "
        f"Sign-in is locked for {minutes} minutes: try again after {until:%H:%M} UTC."
    )


def signin_locked_out(request: HttpRequest, original_response=None, credentials=None) -> HttpResponse:
    """The login page again, with the lock-out and when it ends, answered 429 (Too Many Requests)."""
    form = AuthenticationForm(request, initial={"username": (credentials or {}).get("username", "")})
    context = {
        "form": form,
        "lockout_message": lockout_message(request),
        "next": request.POST.get("next", ""),
    }
    return render(request, "registration/login.html", context, status=429)


def _address(value: str) -> str | None:
    try:
        return str(ipaddress.ip_address(value.strip()))
    except ValueError:
        return None


def client_address(request: HttpRequest) -> str | None:
    """The address a sign-in is counted against: the direct peer (REMOTE_ADDR), unless that peer is one of
    TRUSTED_PROXIES (DJANGO_TRUSTED_PROXIES); then X-Forwarded-For is read from the right, past the trusted
    proxies, and the first address no trusted proxy holds is the client's. A forwarded header from any other
    peer is ignored (anyone can send one), and so is whatever a client wrote to the left of the address its
    proxy saw."""
    peer = request.META.get("REMOTE_ADDR")
    trusted = set(settings.TRUSTED_PROXIES)
    if not trusted or peer not in trusted:
        return peer
    for hop in reversed(request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")):
        address = _address(hop)
        if address is None:
            break  # a malformed hop: nothing to its left can be trusted
        if address not in trusted:
            return address
    return peer
