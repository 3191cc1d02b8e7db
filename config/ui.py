"""Conventions of the operator UI's form views: a service's refusal is shown, never translated by hand.

Services refuse input with Django's `ValidationError` (under the fields it names, or for the whole call).
A form view runs the service inside `service_errors(form)`: a refusal becomes the form's errors and the view
goes on to show the form again. A view without a form (a button) runs it inside `service_refusal(request,
...)`: a refusal becomes the page's error message. Either way the statements after the service call in the
block (the success message, the redirect) are skipped.

    if form.is_valid():
        with service_errors(form):
            agent = services.agent_create(tenant=self.tenant, **form.cleaned_data)
            messages.success(request, "Created.")
            return HttpResponseRedirect(...)
    messages.error(request, "Not created; fix the errors below.")
    return self.get(request, form=form)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest


def add_service_errors(
    form: forms.BaseForm, exc: ValidationError, field_names: Mapping[str, str] = {}
) -> None:
    """`exc`'s messages as `form`'s errors: each under the form field it names (`field_names` maps a service's
    field name to the form's, e.g. {"text": "content"}), or the form's own when the form has no such field."""
    if not hasattr(exc, "error_dict"):
        form.add_error(None, exc.messages)
        return
    for field, errors in exc.message_dict.items():
        name = field_names.get(field, field)
        form.add_error(name if name in form.fields else None, errors)


@contextmanager
def service_errors(form: forms.BaseForm, field_names: Mapping[str, str] = {}) -> Iterator[None]:
    """Run a service for `form`: its ValidationError becomes the form's errors (add_service_errors)."""
    try:
        yield
    except ValidationError as exc:
        add_service_errors(form, exc, field_names)


@contextmanager
def service_refusal(request: HttpRequest, prefix: str = "") -> Iterator[None]:
    """Run a service for a button: its ValidationError becomes the page's error message, `prefix` first; one
    message per field it names (one in all when it names none)."""
    try:
        yield
    except ValidationError as exc:
        groups = exc.message_dict.values() if hasattr(exc, "error_dict") else [exc.messages]
        for field_messages in groups:
            messages.error(request, prefix + " ".join(field_messages))


def field_cleaner(clean: Callable[[Any], Any], field: str) -> Callable[[forms.BaseForm], Any]:
    """A form's `clean_<field>` that runs a service's validation of that field (e.g. the admin's forms): its
    ValidationError, which may name keys inside the value, becomes the field's list of messages."""

    def clean_field(form: forms.BaseForm) -> Any:
        try:
            return clean(form.cleaned_data.get(field))
        except ValidationError as exc:
            raise ValidationError(exc.messages) from None

    return clean_field
