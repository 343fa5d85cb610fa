from django.db import models
from django.db.models import Q


class Post(models.Model):
    """A post the platform pushed in because it is trending. Named everywhere in the API by the
    platform's own id (``external_id``)."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        IN_REVIEW = "in_review", "In review"
        RATED = "rated", "Rated"
        INELIGIBLE = "ineligible", "Not eligible"
        REMOVED = "removed", "Removed"

    external_id = models.CharField(max_length=128)
    author_external_id = models.CharField(max_length=128)
    author_name = models.CharField(max_length=300, blank=True)
    url = models.URLField(max_length=2000, blank=True)
    text = models.TextField(blank=True)
    # Primary ISO 639-1 subtag ("pt" for "pt-BR"): what partner languages match.
    language = models.CharField(max_length=8)
    language_tag = models.CharField(max_length=35, blank=True)
    country = models.CharField(max_length=2, blank=True)
    published_at = models.DateTimeField()
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.QUEUED)
    # Engagement velocity with time decay, recomputed on ingest (see posts.trending).
    trending_score = models.FloatField(default=0.0)
    # The latest snapshot's counts, so lists need no join (snapshots are the history).
    observed_at = models.DateTimeField(null=True, blank=True)
    shares = models.BigIntegerField(default=0)
    views = models.BigIntegerField(default=0)
    comments = models.BigIntegerField(default=0)
    reactions = models.BigIntegerField(default=0)
    reports_hate = models.BigIntegerField(default=0)
    reports_violence = models.BigIntegerField(default=0)
    # SHA-256 of the normalised text, to find exact copies.
    text_fingerprint = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        # Ids and fingerprints are only ever matched exactly: Meta indexes and constraints,
        # not unique/db_index, which on PostgreSQL add a second LIKE index per column, and a
        # claim's status update writes an entry into every index of the row.
        constraints = [
            models.UniqueConstraint(fields=["external_id"], name="post_external_id_unique"),
        ]
        indexes = [
            models.Index(fields=["author_external_id"], name="post_author_idx"),
            models.Index(fields=["text_fingerprint"], name="post_fingerprint_idx"),
            # The queue: queued posts of a language, most trending first, read in index order.
            models.Index(
                "language",
                models.F("trending_score").desc(),
                condition=Q(status="queued"),
                name="post_queue_idx",
            ),
        ]

    def __str__(self):
        return self.external_id


class EngagementSnapshot(models.Model):
    # No index of its own: snapshot_once_per_time's (post, observed_at) index serves every
    # lookup by post, and a second index would cost each ingested snapshot another insert.
    # No database foreign key either: ingest writes a thousand snapshots per batch, and
    # PostgreSQL checks each with a plan cached per connection, a sequential scan of posts
    # when their statistics were taken on a near-empty table, which made each batch slower
    # than the last. Only posts_ingest writes snapshots, in the transaction that writes their
    # post, and posts are deleted only through the ORM, which cascades to them.
    post = models.ForeignKey(
        Post,
        on_delete=models.CASCADE,
        related_name="snapshots",
        db_index=False,
        db_constraint=False,
    )
    observed_at = models.DateTimeField()
    shares = models.BigIntegerField(default=0)
    views = models.BigIntegerField(default=0)
    comments = models.BigIntegerField(default=0)
    reactions = models.BigIntegerField(default=0)
    reports_hate = models.BigIntegerField(default=0)
    reports_violence = models.BigIntegerField(default=0)

    class Meta:
        ordering = ["post", "observed_at"]
        constraints = [
            # The same post and observed_at twice adds nothing (ingest is idempotent).
            models.UniqueConstraint(fields=["post", "observed_at"], name="snapshot_once_per_time"),
            models.CheckConstraint(
                condition=Q(shares__gte=0)
                & Q(views__gte=0)
                & Q(comments__gte=0)
                & Q(reactions__gte=0)
                & Q(reports_hate__gte=0)
                & Q(reports_violence__gte=0),
                name="snapshot_counts_not_negative",
            ),
        ]

    def __str__(self):
        return f"{self.post_id} @ {self.observed_at:%Y-%m-%d %H:%M}"
