from django import forms
from django.contrib.auth.forms import AuthenticationForm

from factcheck.partners.models import ApiClient, Membership, Partner, User


class LoginForm(AuthenticationForm):
    username = forms.EmailField(
        label="Email", widget=forms.EmailInput(attrs={"autofocus": True, "autocomplete": "email"})
    )


class InviteForm(forms.Form):
    """The admin's "Add user" form: the person gets an email with a link to set a password."""

    email = forms.EmailField()
    name = forms.CharField(max_length=150)
    partner = forms.ModelChoiceField(
        queryset=Partner.objects.all(), required=False, help_text="Leave empty for platform staff."
    )
    role = forms.ChoiceField(choices=Membership.Role.choices, initial=Membership.Role.CHECKER)
    moderator = forms.BooleanField(required=False, label="Moderator (platform staff)")

    def clean_email(self):
        email = self.cleaned_data["email"].lower()
        if User.objects.filter(email__iexact=email).exists():
            raise forms.ValidationError("Someone with this email already has an account.")
        return email


class ApiClientCreateForm(forms.ModelForm):
    scopes = forms.MultipleChoiceField(
        choices=ApiClient.Scope.choices, widget=forms.CheckboxSelectMultiple
    )

    class Meta:
        model = ApiClient
        fields = ["name", "scopes", "user"]

    def clean(self):
        cleaned = super().clean()
        scopes = cleaned.get("scopes") or []
        user = cleaned.get("user")
        if ApiClient.Scope.CHECKER in scopes:
            if user is None:
                self.add_error(
                    "user", "A personal token (scope checker) needs the user it acts as."
                )
            if len(scopes) > 1:
                self.add_error("scopes", "A personal token carries only the checker scope.")
        elif user is not None:
            self.add_error("user", "Only personal tokens (scope checker) belong to a user.")
        return cleaned


class ExtendAccreditationForm(forms.Form):
    until = forms.DateField(
        label="Accredited until", widget=forms.DateInput(attrs={"type": "date"})
    )
