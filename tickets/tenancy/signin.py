"""What a locked-out sign-in sees (django-axes calls this; config/settings/signin.py sets the limits)."""

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
