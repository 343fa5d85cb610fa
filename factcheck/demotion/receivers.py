"""How a committed rating becomes a demotion task (STYLE: the lower app sends a signal on
commit, this app's receiver enqueues). Connected in DemotionConfig.ready."""

import logging

from kombu.exceptions import OperationalError

logger = logging.getLogger(__name__)

# A short publish retry: a broker that is down must not hold the checker's request for long;
# the reconciler picks the rating up within a minute or two of the broker's return.
PUBLISH_RETRY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.2}


BROKER_ERRORS = (OperationalError, ConnectionError, OSError, TimeoutError)


def enqueue_demotion(sender, rating, **kwargs) -> None:
    from factcheck.demotion.tasks import demotion_apply

    try:
        demotion_apply.apply_async(args=[rating.post_id], retry=True, retry_policy=PUBLISH_RETRY)
    except BROKER_ERRORS:
        # Never fail the caller: the rating is saved, its demotion_applied_at stays empty,
        # and the reconciler enqueues it again.
        logger.exception(
            "Could not enqueue the demotion of post %s (rating %s); the reconciler will retry.",
            rating.post_id,
            rating.pk,
        )


def enqueue_new_posts(sender, post_ids, text_changed_ids, **kwargs) -> None:
    """New posts of an author under penalty, and exact copies of a rated post, need a row at
    once: absent means 1.0 to the ranker. A changed text can make or unmake a copy, so all of
    text_changed_ids (created posts included) are checked."""
    from factcheck.demotion.tasks import demotion_apply_new_posts

    if not text_changed_ids:
        return
    try:
        demotion_apply_new_posts.apply_async(
            args=[list(text_changed_ids)], retry=True, retry_policy=PUBLISH_RETRY
        )
    except BROKER_ERRORS:
        logger.exception("Could not enqueue the new-post demotion check; the reconciler will.")
