from django import forms

from factcheck.moderation.models import CONTEXT_FLAGS, POLICY_CODES, Action, Source, Tier
from factcheck.moderation.services import AppealOutcome, decision_errors


def _policy_choices():
    groups: dict[str, list[tuple[str, str]]] = {}
    for code, label in POLICY_CODES.items():
        group, _, name = label.partition(": ")
        groups.setdefault(group, []).append((code, name.capitalize()))
    return [("", "Choose a policy…"), *groups.items()]


class QueueFilterForm(forms.Form):
    tier = forms.ChoiceField(
        required=False,
        choices=[("", "All tiers")] + [(tier.code, tier.label) for tier in reversed(Tier)],
    )
    source = forms.ChoiceField(required=False, choices=[("", "Any source"), *Source.choices])
    claim = forms.ChoiceField(
        label="Claimed",
        required=False,
        choices=[("", "Anyone"), ("mine", "Claimed by me"), ("unclaimed", "Unclaimed")],
    )

    def filters(self) -> dict[str, str]:
        if not self.is_valid():
            return {}
        return {name: value for name, value in self.cleaned_data.items() if value}


class DecisionForm(forms.Form):
    """The three buttons submit ``action``; the version is the one the page was rendered on."""

    action = forms.ChoiceField(choices=Action.choices)
    policy_code = forms.ChoiceField(
        label="Policy", required=False, choices=_policy_choices, help_text="Required to remove."
    )
    context_flags = forms.MultipleChoiceField(
        label="Context",
        required=False,
        choices=list(CONTEXT_FLAGS.items()),
        widget=forms.CheckboxSelectMultiple,
    )
    note = forms.CharField(
        label="Note",
        required=False,
        max_length=5000,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Why you decided so. Required to remove or refer.",
    )
    version = forms.IntegerField(widget=forms.HiddenInput, min_value=1)

    def clean(self):
        cleaned = super().clean()
        if "action" not in cleaned:
            return cleaned
        errors = decision_errors(
            action=cleaned["action"],
            policy_code=cleaned.get("policy_code", ""),
            note=cleaned.get("note", ""),
            context_flags=cleaned.get("context_flags", []),
        )
        for field, message in errors.items():
            self.add_error(field, message)
        return cleaned


class AppealDecisionForm(forms.Form):
    outcome = forms.ChoiceField(choices=AppealOutcome.CHOICES)
    note = forms.CharField(
        label="Note",
        required=False,
        max_length=5000,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Your reasons. Required to overturn.",
    )

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("outcome") == AppealOutcome.OVERTURN and not cleaned.get("note", "").strip():
            self.add_error("note", "Explain why the removal is overturned.")
        return cleaned
