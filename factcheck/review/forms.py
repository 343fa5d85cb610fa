from django import forms
from django.core.exceptions import ValidationError

from factcheck.ratings.models import Verdict
from factcheck.ratings.services import rating_validate
from factcheck.review.models import Skip


class SkipForm(forms.Form):
    reason = forms.ChoiceField(
        label="Why skip it?",
        choices=[("", "Choose a reason…"), *Skip.Reason.choices],
        error_messages={"required": "Choose why you are skipping this post."},
    )
    note = forms.CharField(
        label="Note (optional)",
        required=False,
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Seen by your partner only.",
    )


class RatingForm(forms.Form):
    """The rating form of the review page. It parses what was typed; the rules (article URL
    required by verdict, http(s) only, …) are the ratings service's, whose errors land next
    to their fields through ``add_service_errors``."""

    verdict = forms.ChoiceField(
        label="Verdict",
        choices=Verdict.choices,
        widget=forms.RadioSelect(attrs={"data-shortcut": "v"}),
        error_messages={"required": "Choose a verdict."},
    )
    headline = forms.CharField(
        label="Headline",
        max_length=200,
        error_messages={"required": "Write a headline: the one line readers see."},
        help_text="At most 200 characters.",
    )
    summary = forms.CharField(
        label="Summary", required=False, widget=forms.Textarea(attrs={"rows": 4})
    )
    article_url = forms.CharField(
        label="Fact-check article URL",
        required=False,
        max_length=2000,
        widget=forms.URLInput,
        help_text="http(s) only. Required unless the verdict is True, Satire or Not eligible.",
    )
    sources = forms.CharField(
        label="Sources",
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="One URL per line.",
    )
    advocates_violence = forms.BooleanField(label="Advocates violence", required=False)
    attacks_protected_group = forms.BooleanField(label="Attacks a protected group", required=False)
    target_group = forms.CharField(
        label="Target group",
        required=False,
        max_length=100,
        help_text="Which group, when the post attacks one.",
    )

    def clean_sources(self) -> list[str]:
        return [line.strip() for line in self.cleaned_data["sources"].splitlines() if line.strip()]

    def clean(self):
        # The service's rules too, so one submit shows every error at once; rating_submit
        # checks them again (it is the authority, the API goes through it as well).
        data = super().clean()
        attacks = data.get("attacks_protected_group", False)
        try:
            rating_validate(
                verdict=data.get("verdict", ""),
                headline=data.get("headline", ""),
                article_url=data.get("article_url", ""),
                sources=data.get("sources", []),
                attacks_protected_group=attacks,
                target_group=data.get("target_group", "") if attacks else "",
            )
        except ValidationError as error:
            for field, messages in error.message_dict.items():
                if field not in self.errors:
                    self.add_error(field if field in self.fields else None, messages)
        return data

    def add_service_errors(self, error: ValidationError) -> None:
        for field, messages in error.message_dict.items():
            self.add_error(field if field in self.fields else None, messages)
