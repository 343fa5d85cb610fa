from django.conf import settings
from django.db import models
from django.db.models import Q

from factcheck.partners.models import Partner
from factcheck.posts.models import Post


class Verdict(models.TextChoices):
    """DESIGN §4. Declared from most to least severe: the effective verdict of a post is the
    most severe of each partner's latest rating."""

    FALSE = "false", "False"
    ALTERED = "altered", "Altered"
    PARTLY_FALSE = "partly_false", "Partly false"
    MISSING_CONTEXT = "missing_context", "Missing context"
    SATIRE = "satire", "Satire"
    TRUE = "true", "True"
    NOT_ELIGIBLE = "not_eligible", "Not eligible"


VERDICT_SEVERITY = {verdict: rank for rank, verdict in enumerate(Verdict.values)}  # 0 = most severe
# Verdicts whose rating needs no fact-check article (DESIGN §5.3).
VERDICTS_WITHOUT_ARTICLE = {Verdict.TRUE, Verdict.SATIRE, Verdict.NOT_ELIGIBLE}


class Rating(models.Model):
    """A partner's rating of a post. Append-only: a correction is a new version, and the
    latest version of each partner counts."""

    post = models.ForeignKey(Post, on_delete=models.CASCADE, related_name="ratings")
    partner = models.ForeignKey(Partner, on_delete=models.PROTECT, related_name="ratings")
    checker = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="ratings"
    )
    verdict = models.CharField(max_length=20, choices=Verdict.choices)
    headline = models.CharField(max_length=200)
    summary = models.TextField(blank=True)
    article_url = models.URLField(max_length=2000, blank=True)
    sources = models.JSONField(default=list, blank=True)
    advocates_violence = models.BooleanField(default=False)
    attacks_protected_group = models.BooleanField(default=False)
    target_group = models.CharField(max_length=100, blank=True)
    version = models.PositiveIntegerField(default=1)
    supersedes = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="superseded_by"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # Set by the demotion task once this rating is reflected in the demotion table; the
    # reconciler re-enqueues ratings where it is still empty.
    demotion_applied_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["post", "partner", "version"], name="rating_version_once_per_partner"
            ),
        ]
        indexes = [
            models.Index(
                fields=["created_at"],
                condition=Q(demotion_applied_at__isnull=True),
                name="rating_demotion_pending_idx",
            ),
            # The dashboard counts ratings in time windows.
            models.Index(fields=["created_at"], name="rating_created_idx"),
        ]

    def __str__(self):
        return f"{self.get_verdict_display()} by {self.partner} on {self.post} (v{self.version})"

    @property
    def is_flagged(self) -> bool:
        return self.advocates_violence or self.attacks_protected_group
