from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from factcheck.posts.fingerprints import text_fingerprint
from factcheck.posts.models import Post
from factcheck.ratings.models import Verdict

# DESIGN §4: verdict -> (multiplier, label shown, strike for the author). The data migration
# seeds DemotionPolicy from this; it is also the fallback for a verdict without a policy row.
DEFAULT_POLICY = {
    Verdict.FALSE: (0.2, True, True),
    Verdict.ALTERED: (0.2, True, True),
    Verdict.PARTLY_FALSE: (0.5, True, False),
    Verdict.MISSING_CONTEXT: (1.0, True, False),
    Verdict.SATIRE: (1.0, True, False),
    Verdict.TRUE: (1.0, False, False),
    Verdict.NOT_ELIGIBLE: (1.0, False, False),
}

# Fingerprints that never make two posts exact copies: empty text (or a post stored before its
# fingerprint was computed) says nothing about what a post claims.
NON_PROPAGATING_FINGERPRINTS = ("", text_fingerprint(""))


class DemotionPolicy(models.Model):
    """What a verdict does to a post's distribution. One row per verdict, edited in the admin
    (audited); a change is applied to every post with that effective verdict."""

    verdict = models.CharField(max_length=20, choices=Verdict.choices, unique=True)
    multiplier = models.FloatField(
        validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
        help_text="Share of normal distribution the post keeps: 1.0 no demotion, 0.2 a fifth.",
    )
    show_label = models.BooleanField(help_text="The feed shows the verdict as a label.")
    strike = models.BooleanField(help_text="Counts as a strike against the post's author.")
    updated_at = models.DateTimeField(auto_now=True)
    # When posts of this verdict were last re-queued for the current values; the reconciler
    # retries a propagation whose enqueue was lost (updated_at later than this).
    propagated_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        verbose_name = "demotion policy"
        verbose_name_plural = "demotion policies"
        constraints = [
            models.CheckConstraint(
                condition=Q(multiplier__gte=0) & Q(multiplier__lte=1),
                name="policy_multiplier_between_0_and_1",
            ),
        ]

    def __str__(self):
        return f"{self.get_verdict_display()}: ×{self.multiplier:g}"


class Demotion(models.Model):
    """The ranker's row for a post (DESIGN §5.5). Absent means 1.0, no label, not removed.
    Written only by ``demotion.services``."""

    post = models.OneToOneField(Post, on_delete=models.CASCADE, related_name="demotion")
    # Copied from the post so the ranker's lookup by external id needs no join.
    external_id = models.CharField(max_length=128, unique=True)
    author_external_id = models.CharField(max_length=128)
    multiplier = models.FloatField(help_text="post multiplier × author multiplier; 0 if removed")
    post_multiplier = models.FloatField(default=1.0)
    author_multiplier = models.FloatField(default=1.0)
    verdict = models.CharField(max_length=20, choices=Verdict.choices, blank=True)
    label = models.CharField(max_length=20, blank=True)
    removed = models.BooleanField(default=False)
    reasons = models.JSONField(default=list)
    # When the post's effective verdict became a strike (the strike's age), empty otherwise.
    strike_at = models.DateTimeField(null=True, blank=True)
    # The rated post whose verdict this unrated exact copy inherits (DESIGN §5.4), so a source
    # whose text changes can still find the copies of its old text.
    copy_of = models.ForeignKey(
        Post, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Set, in the transaction that changed this post's verdict, while its exact copies await
    # re-applying; cleared once they are. The reconciler retries one left set (a lost enqueue).
    copies_due_at = models.DateTimeField(null=True, blank=True, editable=False)
    effective_from = models.DateTimeField(help_text="since when the ranker sees these values")
    updated_at = models.DateTimeField()
    version = models.PositiveIntegerField(default=1)

    class Meta:
        indexes = [
            models.Index(
                fields=["author_external_id", "strike_at"], name="demotion_author_strike_idx"
            ),
            models.Index(fields=["verdict"], name="demotion_verdict_idx"),
            models.Index(
                fields=["copies_due_at"],
                condition=Q(copies_due_at__isnull=False),
                name="demotion_copies_due_idx",
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(multiplier__gte=0) & Q(multiplier__lte=1),
                name="demotion_multiplier_between_0_and_1",
            ),
        ]

    def __str__(self):
        return f"{self.external_id} ×{self.multiplier:g}"

    @property
    def is_listed(self) -> bool:
        """Whether the ranker's lookup names the post (otherwise it means 1.0)."""
        return self.multiplier < 1 or bool(self.label) or self.removed


class DemotionChange(models.Model):
    """The change feed: one row per change of a post's (multiplier, label, removed). ``seq``
    increases strictly in commit order (see services._sequence_take), so a ranker reading
    ``after=<seq>`` never misses a change."""

    seq = models.BigIntegerField(primary_key=True)
    post = models.ForeignKey(Post, on_delete=models.CASCADE, related_name="+")
    external_id = models.CharField(max_length=128)
    multiplier = models.FloatField()
    label = models.CharField(max_length=20, blank=True)
    removed = models.BooleanField(default=False)
    at = models.DateTimeField()

    class Meta:
        ordering = ["seq"]

    def __str__(self):
        return f"#{self.seq} {self.external_id} ×{self.multiplier:g}"


class DemotionSequence(models.Model):
    """A single counter row (id 1) handing out change-feed sequence numbers. Its row lock,
    held to the end of the transaction, is what orders the feed by commit."""

    last = models.BigIntegerField(default=0)

    def __str__(self):
        return f"last seq {self.last}"


class AuthorStanding(models.Model):
    """An author's strikes (posts rated false/altered in the window) and the author-level
    multiplier they earn. Never a ban: the worst an author gets is the penalty multiplier."""

    author_external_id = models.CharField(max_length=128, unique=True)
    strikes = models.PositiveIntegerField(default=0)
    multiplier = models.FloatField(default=1.0)
    penalty_until = models.DateTimeField(null=True, blank=True)
    # When the oldest strike ages out and the standing must be recomputed (hourly task).
    recheck_at = models.DateTimeField(null=True, blank=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"{self.author_external_id}: {self.strikes} strike(s), ×{self.multiplier:g}"
