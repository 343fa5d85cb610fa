"""Thin tasks: ids in, a service call. Each is safe to run twice (dedupe keys, conditional
updates, unique notification and delivery rows)."""

from celery import shared_task

from factcheck.moderation import notifications, services


@shared_task
def posts_screen(post_ids: list[int], text_changed_ids: list[int]) -> dict:
    return services.posts_screen(post_ids=post_ids, text_changed_ids=text_changed_ids)


@shared_task
def rating_flag_escalate(rating_id: int) -> bool:
    outcome = services.escalation_flag_from_rating(rating_id=rating_id)
    return bool(outcome and outcome.signal)


@shared_task
def escalation_claims_expire() -> int:
    return services.escalation_claims_expire()


@shared_task
def moderation_reconcile() -> dict:
    return services.moderation_reconcile()


@shared_task(autoretry_for=(Exception,), retry_backoff=True, retry_backoff_max=600, max_retries=6)
def notification_emails_send(notification_ids: list[int]) -> int:
    return notifications.notification_emails_send(notification_ids=notification_ids)


# 1, 2, 4 … 256 s between attempts (with jitter): about eight minutes before giving up.
WEBHOOK_MAX_RETRIES = 8


@shared_task(
    bind=True,
    autoretry_for=(notifications.WebhookFailed,),
    retry_backoff=True,
    retry_backoff_max=600,
    retry_jitter=True,
    max_retries=WEBHOOK_MAX_RETRIES,
)
def webhook_deliver(self, delivery_id: int) -> str:
    final = self.request.retries >= WEBHOOK_MAX_RETRIES
    return notifications.webhook_attempt(delivery_id=delivery_id, final=final).status
