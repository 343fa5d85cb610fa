import hashlib
import hmac
import json

import pytest

from factcheck.moderation import tasks
from factcheck.moderation.models import Escalation, Tier, WebhookDelivery
from tests.factories import PostFactory

pytestmark = pytest.mark.django_db


def _verify(request, secret: str) -> bool:
    """What a receiver does: HMAC-SHA256 over the exact bytes received."""
    expected = "sha256=" + hmac.new(secret.encode(), request["body"], hashlib.sha256).hexdigest()
    return hmac.compare_digest(request["headers"]["X-Factcheck-Signature"], expected)


def test_it_posts_a_signed_json_body(webhook_server, add_signal):
    post = PostFactory(external_id="p-42", language="en")
    add_signal(post, tier=Tier.URGENT, categories=["violence"])
    assert len(webhook_server.received) == 1
    request = webhook_server.received[0]
    assert _verify(request, "test-webhook-secret")
    assert not _verify(request, "another-secret")
    assert request["headers"]["Content-Type"] == "application/json"
    body = json.loads(request["body"])
    escalation = Escalation.objects.get()
    assert body["event"] == "escalation.created"
    assert body["escalation"]["id"] == escalation.pk
    assert body["escalation"]["tier"] == "urgent"
    assert body["escalation"]["categories"] == ["violence"]
    assert body["escalation"]["url"] == f"https://factcheck.example/moderation/{escalation.pk}/"
    assert body["post"] == {"id": "p-42", "url": post.url, "language": "en"}
    assert request["headers"]["X-Factcheck-Event-Id"] == body["id"]
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == WebhookDelivery.Status.DELIVERED
    assert delivery.attempts == 1
    assert delivery.attempt_log[0]["status_code"] == 200


def test_it_signs_a_tampered_body_differently(webhook_server, add_signal):
    add_signal(PostFactory())
    request = webhook_server.received[0]
    tampered = {**request, "body": request["body"].replace(b'"high"', b'"normal"')}
    assert tampered["body"] != request["body"]
    assert not _verify(tampered, "test-webhook-secret")


def test_it_retries_with_backoff_and_records_each_attempt(webhook_server, add_signal):
    webhook_server.statuses = [500, 503]
    add_signal(PostFactory())
    # Eager Celery runs the retries at once; a worker waits 1 s, 2 s, … between them.
    assert len(webhook_server.received) == 3
    bodies = {request["body"] for request in webhook_server.received}
    assert len(bodies) == 1  # every retry sends the same signed bytes
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == WebhookDelivery.Status.DELIVERED
    assert delivery.attempts == 3
    assert [entry["status_code"] for entry in delivery.attempt_log] == [500, 503, 200]
    assert delivery.attempt_log[0]["error"] == "HTTP 500"


def test_it_gives_up_after_the_last_retry_and_says_so(webhook_server, add_signal):
    webhook_server.statuses = [500] * (tasks.WEBHOOK_MAX_RETRIES + 1)
    add_signal(PostFactory())
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == WebhookDelivery.Status.FAILED
    assert delivery.attempts == tasks.WEBHOOK_MAX_RETRIES + 1
    assert delivery.last_error == "HTTP 500"


def test_it_records_an_unreachable_receiver(settings, celery_retries, add_signal):
    settings.FACTCHECK_WEBHOOK_SECRET = "s"
    # A port nobody listens on: connection refused on every attempt.
    settings.FACTCHECK_WEBHOOK_URLS = ["http://127.0.0.1:9/hooks"]
    add_signal(PostFactory())
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == WebhookDelivery.Status.FAILED
    assert "refused" in delivery.last_error.lower()


def test_it_does_not_send_unsigned_webhooks(webhook_server, settings, add_signal):
    settings.FACTCHECK_WEBHOOK_SECRET = ""
    add_signal(PostFactory())
    assert webhook_server.received == []
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == WebhookDelivery.Status.FAILED
    assert "FACTCHECK_WEBHOOK_SECRET" in delivery.last_error


def test_it_delivers_each_event_once_per_url(webhook_server, settings, add_signal):
    settings.FACTCHECK_WEBHOOK_URLS = [*settings.FACTCHECK_WEBHOOK_URLS] * 2
    post = PostFactory()
    add_signal(post, key="a", tier=Tier.NORMAL)
    add_signal(post, key="a", tier=Tier.NORMAL)  # the same signal again
    add_signal(post, key="b", tier=Tier.HIGH)  # a rise
    events = [json.loads(request["body"])["event"] for request in webhook_server.received]
    assert events == ["escalation.created", "escalation.raised"]
    # The task run again for a delivered webhook sends nothing.
    tasks.webhook_deliver(WebhookDelivery.objects.first().pk)
    assert len(webhook_server.received) == 2
