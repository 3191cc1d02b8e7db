from django import forms
from django.contrib.auth import get_user_model, password_validation

from ..models import Role


class ApiKeyForm(forms.Form):
    name = forms.CharField(max_length=100, help_text="Who uses it, e.g. 'Support agent' or 'Helpdesk sync'.")
    role = forms.ChoiceField(
        choices=[(Role.OPERATOR, "Operator (read and write)"), (Role.VIEWER, "Viewer (read only)")]
    )


class InvitationForm(forms.Form):
    email = forms.EmailField(max_length=254, help_text="They become a member only when they accept.")
    role = forms.ChoiceField(choices=Role.choices, initial=Role.OPERATOR)


class InvitationPasswordForm(forms.Form):
    """A new user's password, set through an invitation's one-time link (the address is their username)."""

    password1 = forms.CharField(label="Password", strip=False, widget=forms.PasswordInput)
    password2 = forms.CharField(label="Password again", strip=False, widget=forms.PasswordInput)

    def __init__(self, *args, email: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.email = email

    def clean(self):
        cleaned = super().clean()
        first, second = cleaned.get("password1"), cleaned.get("password2")
        if first and second and first != second:
            self.add_error("password2", "The two passwords differ.")
        elif first:
            User = get_user_model()
            try:
                password_validation.validate_password(first, User(username=self.email, email=self.email))
            except forms.ValidationError as exc:
                self.add_error("password1", exc)
        return cleaned
