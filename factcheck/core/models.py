from django.conf import settings
from django.db import models


class AuditEvent(models.Model):
    """An append-only record of a state change with business meaning. Written only by
    ``factcheck.core.services.audit_record``; never updated or deleted."""

    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Who acted when it was no person: "api:<client name>", "system:<task>".
    actor_label = models.CharField(max_length=200)
    action = models.CharField(max_length=100)
    object_type = models.CharField(max_length=100)
    object_id = models.CharField(max_length=200)
    object_repr = models.CharField(max_length=300)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    request_id = models.CharField(max_length=64, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        # Every business write adds a row here, so few indexes: Meta indexes rather than
        # db_index, which on PostgreSQL adds a second LIKE index per text column.
        indexes = [
            models.Index(fields=["action"], name="audit_action_idx"),
            models.Index(fields=["object_type", "object_id"], name="audit_object_idx"),
        ]

    def __str__(self):
        return f"{self.actor_label} {self.action} {self.object_repr}"

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise ValueError("Audit events are append-only.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ValueError("Audit events are append-only.")
