"""The form of the tenant admin's Webhooks page."""

from django import forms

from ..models import WebhookEvent


class WebhookEndpointForm(forms.Form):
    url = forms.URLField(
        max_length=500, assume_scheme="https", help_text="An https:// URL that accepts POSTed JSON."
    )
    events = forms.MultipleChoiceField(
        choices=WebhookEvent.choices, widget=forms.CheckboxSelectMultiple, initial=WebhookEvent.values
    )
