from typing import Any

from django.db import models

from factcheck.core.models import AuditEvent
from factcheck.core.request_context import current_request_id


def actor_label_for(actor) -> str:
    if actor is None:
        return "system"
    if isinstance(actor, str):
        return actor
    return getattr(actor, "email", "") or str(actor)


def audit_record(*, actor, action: str, **details: Any) -> AuditEvent:
    """Record one business state change. ``actor`` is a user, or a label such as
    "api:platform" or "system:accreditation_check" when no person acted; ``details`` are
    ``obj``, ``object_type``, ``object_id``, ``object_repr``, ``before`` and ``after``."""
    event = _audit_event(actor=actor, action=action, **details)
    event.save()
    return event


def audit_record_many(records: list[dict[str, Any]]) -> list[AuditEvent]:
    """Several changes in one INSERT; each dict holds ``audit_record``'s arguments."""
    return AuditEvent.objects.bulk_create([_audit_event(**record) for record in records])


def _audit_event(
    *,
    actor,
    action: str,
    obj: models.Model | None = None,
    object_type: str = "",
    object_id: str = "",
    object_repr: str = "",
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
) -> AuditEvent:
    if obj is not None:
        object_type = object_type or obj._meta.label_lower
        object_id = object_id or str(obj.pk)
        object_repr = object_repr or str(obj)
    user = actor if getattr(actor, "pk", None) and hasattr(actor, "email") else None
    return AuditEvent(
        actor=user,
        actor_label=actor_label_for(actor)[:200],
        action=action,
        object_type=object_type,
        object_id=object_id[:200],
        object_repr=object_repr[:300],
        before=before,
        after=after,
        request_id=current_request_id.get(),
    )


def model_snapshot(obj: models.Model, fields: list[str]) -> dict[str, Any]:
    """The named fields of ``obj`` as JSON-ready values, for an audit event's before/after."""
    snapshot = {}
    for name in fields:
        value = getattr(obj, name)
        if hasattr(value, "isoformat"):
            value = value.isoformat()
        elif isinstance(value, models.Model):
            value = str(value)
        snapshot[name] = value
    return snapshot
