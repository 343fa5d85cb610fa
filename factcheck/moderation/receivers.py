"""Receivers for lower apps' events, connected in ModerationConfig.ready (STYLE: layers). Both
signals are sent on commit, so the tasks are enqueued right away; a broker that is down is
logged and the work is left for the reconciler (services.moderation_reconcile)."""

from factcheck.moderation import services, tasks


def screen_ingested_posts(sender, post_ids, text_changed_ids, **kwargs):
    """One task per ingest batch: score the changed texts, check every post's report rate."""
    post_ids, text_changed_ids = list(post_ids), list(text_changed_ids)
    if not post_ids:
        return
    if not services.enqueue(tasks.posts_screen, post_ids, text_changed_ids):
        services.screening_defer(post_ids=post_ids, text_changed_ids=text_changed_ids)


def escalate_flagged_rating(sender, rating, **kwargs):
    if rating.is_flagged:
        # Not sent: the reconciler finds flagged ratings that have no signal.
        services.enqueue(tasks.rating_flag_escalate, rating.pk)
