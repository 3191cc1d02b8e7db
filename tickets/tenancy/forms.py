from django import forms
from django.contrib.auth import get_user_model

from .models import Role


class ApiKeyForm(forms.Form):
    name = forms.CharField(max_length=100, help_text="Who uses it, e.g. 'Support agent' or 'Helpdesk sync'.")
    role = forms.ChoiceField(
        choices=[(Role.OPERATOR, "Operator (read and write)"), (Role.VIEWER, "Viewer (read only)")]
    )


class MemberForm(forms.Form):
    username = forms.CharField(max_length=150)
    role = forms.ChoiceField(choices=Role.choices, initial=Role.OPERATOR)

    def clean_username(self):
        username = self.cleaned_data["username"]
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise forms.ValidationError(
                f"No user is called “{username}”. Create the account in the admin first."
            )
        return user
