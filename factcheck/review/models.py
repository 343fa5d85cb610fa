from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from factcheck.partners.models import Partner
from factcheck.posts.models import Post


class ClaimQuerySet(models.QuerySet):
    def live(self, now=None):
        """Claims that still hold their post: active and not past their lease."""
        return self.filter(state=Claim.State.ACTIVE, expires_at__gt=now or timezone.now())


class Claim(models.Model):
    """A checker's lease on a post. At most one active claim per post; a lease past
    ``expires_at`` that is still active is free for anyone to take (claim_next ends it)."""

    class State(models.TextChoices):
        ACTIVE = "active", "Active"
        RELEASED = "released", "Released"
        COMPLETED = "completed", "Rated"
        EXPIRED = "expired", "Expired"
        SKIPPED = "skipped", "Skipped"

    post = models.ForeignKey(Post, on_delete=models.CASCADE, related_name="claims")
    # No index of its own: every index is paid for on each claim, the busiest write of the
    # product. Live claims are found through claim_active_checker_idx; checkers are
    # deactivated, not deleted, so the cascade that would want a full index hardly runs.
    checker = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="claims",
        db_index=False,
    )
    partner = models.ForeignKey(Partner, on_delete=models.CASCADE, related_name="claims")
    claimed_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    state = models.CharField(max_length=20, choices=State.choices, default=State.ACTIVE)
    ended_at = models.DateTimeField(null=True, blank=True)

    objects = ClaimQuerySet.as_manager()

    class Meta:
        ordering = ["-claimed_at", "-id"]
        constraints = [
            # The invariant the whole queue rests on: two checkers never hold one post.
            models.UniqueConstraint(
                fields=["post"], condition=Q(state="active"), name="claim_one_active_per_post"
            ),
            models.CheckConstraint(
                condition=(Q(state="active") & Q(ended_at__isnull=True))
                | (~Q(state="active") & Q(ended_at__isnull=False)),
                name="claim_ended_at_iff_ended",
            ),
        ]
        indexes = [
            # A checker's live claims (the claim limit, the queue page). Partial, so the limit
            # is counted among a few active rows, not every claim of the last lease period.
            models.Index(
                fields=["checker", "expires_at"],
                condition=Q(state="active"),
                name="claim_active_checker_idx",
            ),
            # The expiry sweep.
            models.Index(
                fields=["expires_at"], condition=Q(state="active"), name="claim_active_expiry_idx"
            ),
        ]

    def __str__(self):
        return f"{self.post} claimed by {self.checker} ({self.get_state_display()})"

    def is_live(self, now=None) -> bool:
        return self.state == self.State.ACTIVE and self.expires_at > (now or timezone.now())


class Skip(models.Model):
    """A partner passed on a post: it never shows in that partner's queue again."""

    class Reason(models.TextChoices):
        NOT_ELIGIBLE = "not_eligible", "Not eligible or opinion"
        CANNOT_VERIFY = "cannot_verify", "Cannot verify"
        CONFLICT_OF_INTEREST = "conflict_of_interest", "Conflict of interest"
        OTHER = "other", "Other"

    post = models.ForeignKey(Post, on_delete=models.CASCADE, related_name="skips")
    partner = models.ForeignKey(Partner, on_delete=models.CASCADE, related_name="skips")
    checker = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="skips"
    )
    reason = models.CharField(max_length=30, choices=Reason.choices)
    note = models.TextField(blank=True, max_length=2000)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["post", "partner"], name="skip_once_per_partner"),
        ]

    def __str__(self):
        return f"{self.partner} skipped {self.post} ({self.get_reason_display()})"
