from django.conf import settings
from django.db import models
from django.db.models import Q

from factcheck.posts.models import Post
from factcheck.ratings.models import Rating


class Tier(models.IntegerChoices):
    """Severity of an escalation; a larger value is more severe, so "rises" compare as numbers
    and the queue orders by ``-tier``."""

    NORMAL = 1, "Normal"
    HIGH = 2, "High"
    URGENT = 3, "Urgent"

    @property
    def code(self) -> str:
        return self.name.lower()

    @classmethod
    def from_code(cls, code: str) -> "Tier":
        return cls[code.upper()]


class Source(models.TextChoices):
    CHECKER_FLAG = "checker_flag", "Fact-checker's flag"
    SCORER = "scorer", "Text scorer"
    USER_REPORTS = "user_reports", "User reports"


class Action(models.TextChoices):
    REMOVE = "remove", "Remove"
    KEEP = "keep", "Keep"
    REFER = "refer", "Refer"


# The policy a decision applies (issue 5). Codes are a contract of the decision API.
POLICY_CODES = {
    "violence.threat": "Violence: threat",
    "violence.call_to_action": "Violence: call to action",
    "violence.incitement": "Violence: incitement",
    "hate.dehumanisation": "Hate: dehumanisation",
    "hate.slur": "Hate: slur",
    "hate.exclusion": "Hate: exclusion",
}

# Context a moderator weighs; recorded with the decision, shown in audits and exports.
CONTEXT_FLAGS = {
    "newsworthy": "Newsworthy or public interest",
    "counter_speech": "Counter-speech or condemnation",
    "reporting": "Quotation or news reporting",
    "satire": "Satire, fiction or art",
    "minor_involved": "A minor is involved",
    "imminent_harm": "Imminent risk of harm",
}


class Escalation(models.Model):
    """A post sent to moderators. Signals collect on the one open escalation of a post; its
    tier sets the SLA. Decided escalations reopen only for a signal of a higher tier."""

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        DECIDED = "decided", "Decided"

    post = models.ForeignKey(Post, on_delete=models.CASCADE, related_name="escalations")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    tier = models.PositiveSmallIntegerField(choices=Tier.choices)
    sla_due_at = models.DateTimeField()
    # The highest score among the signals (a checker's flag carries none).
    score = models.FloatField(null=True, blank=True)
    categories = models.JSONField(default=list, blank=True)
    sources = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    reopened_at = models.DateTimeField(null=True, blank=True)
    # A lease: a claim lapses at claim_expires_at and anyone may take the item again.
    claimed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    claim_expires_at = models.DateTimeField(null=True, blank=True)
    # Bumped by every change a decision depends on (signals, reopening, deciding).
    version = models.PositiveIntegerField(default=1)
    action = models.CharField(max_length=10, choices=Action.choices, blank=True)
    policy_code = models.CharField(max_length=40, blank=True)
    context_flags = models.JSONField(default=list, blank=True)
    note = models.TextField(blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["post"], condition=Q(status="open"), name="escalation_one_open_per_post"
            ),
            models.CheckConstraint(
                condition=Q(status="open") | ~Q(action=""), name="escalation_decided_has_action"
            ),
        ]
        indexes = [
            models.Index(
                models.F("tier").desc(),
                "sla_due_at",
                condition=Q(status="open"),
                name="escalation_queue_idx",
            ),
        ]

    def __str__(self):
        return f"Escalation #{self.pk} ({self.tier_code}) of post {self.post_id}"

    @property
    def tier_code(self) -> str:
        return Tier(self.tier).code

    @property
    def is_open(self) -> bool:
        return self.status == self.Status.OPEN

    def claim_holder(self, now):
        """The moderator holding a live claim, or None."""
        if self.claimed_by_id and self.claim_expires_at and self.claim_expires_at > now:
            return self.claimed_by
        return None

    @property
    def policy_label(self) -> str:
        return POLICY_CODES.get(self.policy_code, self.policy_code)

    @property
    def context_flag_labels(self) -> list[str]:
        return [CONTEXT_FLAGS.get(flag, flag) for flag in self.context_flags]


class EscalationSignal(models.Model):
    """One piece of evidence. ``dedupe_key`` names the event (a rating, a scored text, a
    snapshot), so the same signal arriving twice adds nothing."""

    escalation = models.ForeignKey(Escalation, on_delete=models.CASCADE, related_name="signals")
    source = models.CharField(max_length=20, choices=Source.choices)
    tier = models.PositiveSmallIntegerField(choices=Tier.choices)
    score = models.FloatField(null=True, blank=True)
    details = models.JSONField(default=dict, blank=True)
    dedupe_key = models.CharField(max_length=200, unique=True)
    rating = models.ForeignKey(
        Rating,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="escalation_signals",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self):
        return f"{self.get_source_display()} ({self.tier_code}) on escalation {self.escalation_id}"

    @property
    def tier_code(self) -> str:
        return Tier(self.tier).code


class Notification(models.Model):
    """Moderators told about an escalation event. Unique per (escalation, event, tier): the
    tier only rises, so each creation, rise and reopening is announced exactly once."""

    class Event(models.TextChoices):
        CREATED = "created", "Opened"
        RAISED = "raised", "Tier raised"
        REOPENED = "reopened", "Reopened"

    escalation = models.ForeignKey(
        Escalation, on_delete=models.CASCADE, related_name="notifications"
    )
    event = models.CharField(max_length=10, choices=Event.choices)
    tier = models.PositiveSmallIntegerField(choices=Tier.choices)
    # The webhook body, fixed at creation so every retry sends the same bytes.
    payload = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)
    email_sent_at = models.DateTimeField(null=True, blank=True)
    email_recipients = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["escalation", "event", "tier"], name="notification_once_per_event"
            ),
        ]
        indexes = [
            models.Index(
                fields=["created_at"],
                condition=Q(email_sent_at__isnull=True),
                name="notification_email_pending_idx",
            ),
        ]

    def __str__(self):
        return f"{self.get_event_display()} {Tier(self.tier).code}: escalation {self.escalation_id}"


class WebhookDelivery(models.Model):
    """One notification to one configured URL, with every attempt in ``attempt_log``."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        DELIVERED = "delivered", "Delivered"
        FAILED = "failed", "Failed"

    notification = models.ForeignKey(
        Notification, on_delete=models.CASCADE, related_name="deliveries"
    )
    url = models.URLField(max_length=2000)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    attempt_log = models.JSONField(default=list, blank=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "webhook deliveries"
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["notification", "url"], name="webhook_once_per_url"),
        ]
        indexes = [
            models.Index(
                fields=["created_at"], condition=Q(status="pending"), name="webhook_pending_idx"
            ),
        ]

    def __str__(self):
        return f"{self.url} ({self.status}, {self.attempts} attempts)"


class PendingScreening(models.Model):
    """An ingest batch whose screening task could not be enqueued (broker down). The
    reconciler enqueues it later, so a broker outage loses no batch."""

    post_ids = models.JSONField(default=list)
    text_changed_ids = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"{len(self.post_ids)} posts waiting for screening"


class Removal(models.Model):
    """A post taken down by a moderator. Never the author: nothing here bans anyone."""

    post = models.ForeignKey(Post, on_delete=models.CASCADE, related_name="removals")
    escalation = models.ForeignKey(Escalation, on_delete=models.PROTECT, related_name="removals")
    policy_code = models.CharField(max_length=40)
    note = models.TextField(blank=True)
    removed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    # What an overturn restores.
    previous_status = models.CharField(max_length=20, choices=Post.Status.choices)
    referral = models.BooleanField(default=False, help_text="Marked for law-enforcement referral.")
    created_at = models.DateTimeField(auto_now_add=True)
    overturned_at = models.DateTimeField(null=True, blank=True)
    overturned_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["post"],
                condition=Q(overturned_at__isnull=True),
                name="removal_one_standing_per_post",
            ),
        ]

    def __str__(self):
        return f"Removal of post {self.post_id} ({self.policy_label})"

    @property
    def policy_label(self) -> str:
        return POLICY_CODES.get(self.policy_code, self.policy_code)

    @property
    def is_standing(self) -> bool:
        return self.overturned_at is None


class RemovalAppeal(models.Model):
    """The author's one appeal of a removal, filed by the platform."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        UPHELD = "upheld", "Removal upheld"
        OVERTURNED = "overturned", "Removal overturned"

    removal = models.OneToOneField(Removal, on_delete=models.CASCADE, related_name="appeal")
    text = models.TextField()
    filed_by = models.CharField(max_length=200, help_text="The API client that filed it.")
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField(auto_now_add=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_note = models.TextField(blank=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [
            models.Index(
                fields=["created_at"], condition=Q(status="pending"), name="appeal_pending_idx"
            ),
        ]

    def __str__(self):
        return f"Appeal of removal {self.removal_id} ({self.status})"
