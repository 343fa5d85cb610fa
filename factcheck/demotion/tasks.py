"""Thin tasks: each takes ids and calls a service. acks_late and reject_on_worker_lost are set
for every task in factcheck/celery.py, so a killed worker's task is delivered again; the
services are idempotent, so running one twice changes nothing."""

import logging

from celery import shared_task
from django.db import DatabaseError

from factcheck.demotion import selectors, services

logger = logging.getLogger(__name__)

# Deadlocks, serialization failures, a database restart: retry with exponential backoff
# (1 s, 2 s, 4 s … capped at 5 minutes, jittered) before the reconciler's safety net.
DB_RETRY = {
    "autoretry_for": (DatabaseError,),
    "retry_backoff": True,
    "retry_backoff_max": 300,
    "retry_jitter": True,
    "max_retries": 8,
}


@shared_task(**DB_RETRY)
def demotion_apply(post_id: int) -> None:
    services.demotion_apply(post_id=post_id)


@shared_task(**DB_RETRY)
def demotion_apply_batch(post_ids: list[int]) -> None:
    for post_id in post_ids:
        services.demotion_apply(post_id=post_id)


@shared_task(**DB_RETRY)
def demotion_apply_new_posts(post_ids: list[int]) -> int:
    return services.demotion_apply_new_posts(post_ids=post_ids)


@shared_task(**DB_RETRY)
def demotion_apply_copies(post_id: int) -> int:
    """Re-apply the exact copies of a post whose verdict changed, in batches of their own."""
    return services.demotion_copies_propagate(post_id=post_id, enqueue=demotion_apply_batch.delay)


@shared_task(**DB_RETRY)
def demotion_policy_propagate(verdict: str) -> int:
    return services.demotion_policy_propagate(verdict=verdict, enqueue=demotion_apply_batch.delay)


@shared_task
def demotion_reconcile() -> int:
    """Every minute (beat): re-enqueue what the demotion pipeline has not applied, so a broker
    outage at submit time or a killed worker loses nothing."""
    post_ids = selectors.posts_needing_demotion()
    for post_id in post_ids:
        demotion_apply.delay(post_id)
    for verdict in selectors.policies_to_propagate():
        demotion_policy_propagate.delay(verdict)
    sources = selectors.posts_with_copies_due()
    for post_id in sources:
        demotion_apply_copies.delay(post_id)
    if post_ids or sources:
        logger.info(
            "Reconciler re-enqueued the demotion of %d post(s) and the copies of %d post(s).",
            len(post_ids),
            len(sources),
        )
    return len(post_ids) + len(sources)


@shared_task(**DB_RETRY)
def author_standings_refresh() -> int:
    """Hourly (beat): age strikes out and lift penalties that have run out."""
    return services.author_standings_refresh()
