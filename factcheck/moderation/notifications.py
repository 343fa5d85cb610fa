"""Telling moderators: an email to every active moderator and a signed webhook per configured
URL, each exactly once per escalation event (the Notification row is the event; the tasks that
send are idempotent against it)."""

import hashlib
import hmac
import json
import logging
import urllib.error
import urllib.request

from django.conf import settings
from django.core.mail import EmailMessage, get_connection
from django.db import transaction
from django.utils import timezone

from factcheck.moderation.models import Notification, Tier, WebhookDelivery
from factcheck.partners.models import MODERATORS_GROUP, User

log = logging.getLogger(__name__)

SIGNATURE_HEADER = "X-Factcheck-Signature"
WEBHOOK_TIMEOUT_SECONDS = 10
USER_AGENT = "factcheck-webhooks/1"


class WebhookFailed(Exception):
    """The receiver did not answer 2xx; Celery retries with backoff."""


def webhook_body(payload: dict) -> bytes:
    """Canonical bytes: the same event always sends the same body, so retries verify alike."""
    return json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()


def webhook_signature(body: bytes, secret: str) -> str:
    """``sha256=<hex HMAC-SHA256 of the exact body>``; receivers compare it in constant time."""
    digest = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return f"sha256={digest}"


def http_post(url: str, body: bytes, headers: dict[str, str]) -> int:
    """POST and return the status code (4xx/5xx included); raises OSError when unreachable."""
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=WEBHOOK_TIMEOUT_SECONDS) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def webhook_attempt(*, delivery_id: int, final: bool) -> WebhookDelivery:
    """One delivery attempt, recorded. Raises WebhookFailed on failure unless ``final`` (the
    last retry), when the delivery is marked failed instead."""
    delivery = WebhookDelivery.objects.select_related("notification").get(pk=delivery_id)
    if delivery.status != WebhookDelivery.Status.PENDING:
        return delivery
    secret = settings.FACTCHECK_WEBHOOK_SECRET
    now = timezone.now()
    status_code = None
    if not secret:
        error = "Not sent: FACTCHECK_WEBHOOK_SECRET is empty, so it could not be signed."
        final = True
    else:
        notification = delivery.notification
        body = webhook_body(notification.payload)
        headers = {
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
            SIGNATURE_HEADER: webhook_signature(body, secret),
            "X-Factcheck-Event": notification.payload.get("event", ""),
            # Receivers dedupe on this: a retry after a lost response repeats the event.
            "X-Factcheck-Event-Id": notification.payload.get("id", ""),
            "X-Factcheck-Delivery": str(delivery.pk),
        }
        try:
            status_code = http_post(delivery.url, body, headers)
            error = "" if 200 <= status_code < 300 else f"HTTP {status_code}"
        except OSError as exc:  # refused, DNS, timeout: URLError and socket errors
            error = f"{type(exc).__name__}: {exc}"[:500]
    delivery.attempts += 1
    delivery.last_attempt_at = now
    delivery.last_status_code = status_code
    delivery.last_error = error
    delivery.attempt_log = [
        *delivery.attempt_log,
        {"at": now.isoformat(), "status_code": status_code, "error": error},
    ]
    if not error:
        delivery.status = WebhookDelivery.Status.DELIVERED
        delivery.delivered_at = now
    elif final:
        delivery.status = WebhookDelivery.Status.FAILED
    delivery.save()
    if error and not final:
        raise WebhookFailed(f"{delivery.url}: {error}")
    if error:
        log.error(
            "Webhook %s gave up after %d attempts: %s", delivery.url, delivery.attempts, error
        )
    return delivery


def moderator_emails() -> list[str]:
    return list(
        User.objects.filter(is_active=True, groups__name=MODERATORS_GROUP)
        .order_by("email")
        .values_list("email", flat=True)
        .distinct()
    )


def _email_text(notification: Notification) -> tuple[str, str]:
    payload = notification.payload
    escalation = payload["escalation"]
    tier = Tier.from_code(escalation["tier"])
    verb = {
        Notification.Event.CREATED: "New escalation",
        Notification.Event.RAISED: "Escalation raised",
        Notification.Event.REOPENED: "Escalation reopened",
    }[notification.event]
    due = escalation["sla_due_at"]
    # Post text stays out of the subject: it is hostile input, and headers are one line.
    subject = f"[{tier.label}] {verb} #{escalation['id']}: post {payload['post']['id']}"[:200]
    body = "\n".join(
        [
            f"{verb}: tier {tier.label.lower()}, decision due by {due} (UTC).",
            f"Categories: {', '.join(escalation['categories']) or 'none named'}.",
            f"Signals from: {', '.join(escalation['sources'])}.",
            "",
            f"Open it: {escalation['url']}",
            "",
            "You receive this because you are a moderator on factcheck.",
        ]
    )
    return subject, body


def notification_emails_send(*, notification_ids: list[int]) -> int:
    """Email every active moderator about each notification, once: one read of the moderators
    and one mail connection for all. A notification is marked sent before sending (a crash
    then loses an email rather than doubling it; the webhook is the retried channel); when a
    send fails, the notifications not yet sent are unmarked so the retry sends them. Returns
    the number of emails sent."""
    with transaction.atomic():
        # Locked, so two runs of the task (or the reconciler's) cannot both claim one.
        claimed = list(
            Notification.objects.select_for_update()
            .filter(pk__in=notification_ids, email_sent_at__isnull=True)
            .order_by("pk")
        )
        Notification.objects.filter(pk__in=[n.pk for n in claimed]).update(
            email_sent_at=timezone.now()
        )
    if not claimed:
        return 0
    recipients = moderator_emails()
    sent = []
    try:
        with get_connection() as connection:
            for notification in claimed:
                subject, body = _email_text(notification)
                connection.send_messages(
                    [
                        EmailMessage(subject, body, settings.DEFAULT_FROM_EMAIL, [email])
                        for email in recipients
                    ]
                )
                sent.append(notification.pk)
    except Exception:
        unsent = [notification.pk for notification in claimed if notification.pk not in sent]
        Notification.objects.filter(pk__in=unsent).update(email_sent_at=None)
        raise
    finally:
        Notification.objects.filter(pk__in=sent).update(email_recipients=len(recipients))
    return len(sent) * len(recipients)
