import hashlib
import secrets

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, BaseUserManager, PermissionsMixin
from django.db import models
from django.utils import timezone

MODERATORS_GROUP = "moderators"


class UserManager(BaseUserManager):
    use_in_migrations = True

    def create_user(self, email, password=None, **extra):
        if not email:
            raise ValueError("An email address is required.")
        user = self.model(email=self.normalize_email(email).lower(), **extra)
        if password:
            user.set_password(password)
        else:
            user.set_unusable_password()
        user.save(using=self._db)
        return user

    def create_superuser(self, email, password=None, **extra):
        extra.update(is_staff=True, is_superuser=True)
        return self.create_user(email, password, **extra)

    def get_by_natural_key(self, username):
        return self.get(email__iexact=username)


class User(AbstractBaseUser, PermissionsMixin):
    """A person who signs in with an email address: checker, lead, moderator or admin."""

    email = models.EmailField(unique=True)
    name = models.CharField(max_length=150, blank=True)
    is_active = models.BooleanField(default=True)
    is_staff = models.BooleanField(default=False, help_text="May sign in to the admin site.")
    date_joined = models.DateTimeField(default=timezone.now)

    objects = UserManager()

    USERNAME_FIELD = "email"
    EMAIL_FIELD = "email"
    REQUIRED_FIELDS = ["name"]

    class Meta:
        ordering = ["email"]

    def __str__(self):
        return self.name or self.email

    def get_full_name(self):
        return self.name or self.email

    def get_short_name(self):
        return self.name or self.email


class Partner(models.Model):
    """An accredited fact-checking organisation."""

    class Status(models.TextChoices):
        ACTIVE = "active", "Active"
        SUSPENDED = "suspended", "Suspended"

    name = models.CharField(max_length=200, unique=True)
    slug = models.SlugField(max_length=80, unique=True)
    countries = models.JSONField(default=list, blank=True, help_text="ISO 3166-1 alpha-2 codes.")
    languages = models.JSONField(default=list, help_text="ISO 639-1 codes the partner rates in.")
    accreditation_body = models.CharField(max_length=200, blank=True)
    accreditation_id = models.CharField(max_length=100, blank=True)
    accredited_until = models.DateField()
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.ACTIVE)
    status_reason = models.CharField(max_length=300, blank=True)
    # The accreditation date a 30-day warning was sent for, so the daily task warns once.
    expiry_warning_sent_for = models.DateField(null=True, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name

    @property
    def is_accredited(self) -> bool:
        return self.accredited_until >= timezone.localdate()

    @property
    def can_act(self) -> bool:
        """Members may claim and rate only while both hold (DESIGN §2)."""
        return self.status == self.Status.ACTIVE and self.is_accredited


class Membership(models.Model):
    class Role(models.TextChoices):
        CHECKER = "checker", "Fact-checker"
        LEAD = "lead", "Partner lead"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    partner = models.ForeignKey(Partner, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=20, choices=Role.choices, default=Role.CHECKER)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            # A checker works for one partner: their queue, claims and ratings are that partner's.
            models.UniqueConstraint(fields=["user"], name="membership_one_partner_per_user"),
        ]

    def __str__(self):
        return f"{self.user} ({self.get_role_display()}, {self.partner})"


class ApiClient(models.Model):
    """A bearer token. Service tokens carry service scopes; a personal token (scope "checker")
    acts as its user. Only the SHA-256 of the token is stored."""

    class Scope(models.TextChoices):
        INGEST = "ingest", "ingest: push posts"
        DEMOTIONS_READ = "demotions:read", "demotions:read: read the demotion table"
        DISPUTES_WRITE = "disputes:write", "disputes:write: file disputes and appeals"
        METRICS = "metrics", "metrics: read metrics"
        CHECKER = "checker", "checker: act as the user (personal token)"

    name = models.CharField(max_length=200)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="api_tokens",
        help_text="Only for personal tokens (scope checker): the person the token acts as.",
    )
    scopes = models.JSONField(default=list)
    token_hash = models.CharField(max_length=64, unique=True, editable=False)
    token_prefix = models.CharField(max_length=12, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["name"]
        verbose_name = "API client"

    def __str__(self):
        return f"{self.name} ({self.token_prefix}…)"

    @property
    def is_revoked(self) -> bool:
        return self.revoked_at is not None

    @staticmethod
    def hash_token(token: str) -> str:
        return hashlib.sha256(token.encode()).hexdigest()

    @staticmethod
    def generate_token() -> str:
        return "fc_" + secrets.token_urlsafe(32)
