"""Every task run twice changes nothing the second time; the reconciler and a broker outage."""

from datetime import timedelta
from unittest import mock

import pytest
from django.db import OperationalError as DatabaseOperationalError
from django.utils import timezone
from kombu.exceptions import OperationalError

from factcheck.demotion import selectors, tasks
from factcheck.demotion.models import AuthorStanding, Demotion, DemotionChange, DemotionPolicy
from factcheck.demotion.services import demotion_policy_update
from factcheck.posts.models import Post
from factcheck.ratings.models import Rating
from factcheck.ratings.services import rating_create
from tests.factories import PostFactory, RatingFactory


def snapshot():
    """Everything the pipeline writes, to compare before and after a second run."""
    return (
        list(
            Demotion.objects.order_by("post_id").values_list(
                "post_id", "multiplier", "label", "removed", "reasons", "version", "updated_at"
            )
        ),
        list(DemotionChange.objects.values_list("seq", "external_id", "multiplier")),
        list(AuthorStanding.objects.values_list("author_external_id", "strikes", "multiplier")),
        list(Rating.objects.order_by("pk").values_list("pk", "demotion_applied_at")),
    )


@pytest.mark.django_db
def test_it_applies_a_demotion_once_however_often_the_task_runs(alice):
    post = PostFactory()
    RatingFactory(post=post, partner=alice.memberships.get().partner, verdict="false")
    tasks.demotion_apply.delay(post.pk)
    first = snapshot()
    tasks.demotion_apply.delay(post.pk)
    assert snapshot() == first
    assert len(first[1]) == 1


@pytest.mark.django_db
def test_it_changes_nothing_when_an_author_wide_penalty_task_runs_twice(rate, alice):
    posts = [PostFactory(author_external_id="author-x") for _ in range(4)]
    for post in posts[:3]:
        rate(post, alice, "false")
    first = snapshot()
    for post in posts:
        tasks.demotion_apply.delay(post.pk)
        tasks.demotion_apply_batch.delay([post.pk, post.pk])
    tasks.demotion_apply_new_posts.delay([post.pk for post in posts])
    tasks.author_standings_refresh.delay()
    assert snapshot() == first


@pytest.mark.django_db
def test_it_ages_strikes_out_idempotently(rate, alice):
    posts = [PostFactory(author_external_id="author-x") for _ in range(4)]
    for post in posts[:3]:
        rate(post, alice, "false")
    # Time passes: the strikes' ratings are now 91 days old.
    shift = timedelta(days=91)
    for demotion in Demotion.objects.exclude(strike_at=None):
        Demotion.objects.filter(pk=demotion.pk).update(strike_at=demotion.strike_at - shift)
    for standing in AuthorStanding.objects.exclude(recheck_at=None):
        AuthorStanding.objects.filter(pk=standing.pk).update(recheck_at=standing.recheck_at - shift)
    assert tasks.author_standings_refresh.delay().get() == 1
    first = snapshot()
    assert AuthorStanding.objects.get().multiplier == 1.0
    assert tasks.author_standings_refresh.delay().get() == 0
    assert snapshot() == first


@pytest.mark.django_db
def test_it_reapplies_every_post_of_a_verdict_when_its_policy_changes(
    rate, alice, ada, django_capture_on_commit_callbacks
):
    first, second = PostFactory(), PostFactory()
    rate(first, alice, "partly_false")
    rate(second, alice, "false")
    policy = DemotionPolicy.objects.get(verdict="partly_false")
    with django_capture_on_commit_callbacks(execute=True):
        demotion_policy_update(
            policy=policy, actor=ada, multiplier=0.4, show_label=True, strike=False
        )
    assert Demotion.objects.get(post=first).multiplier == 0.4
    assert Demotion.objects.get(post=second).multiplier == 0.2
    assert selectors.policies_to_propagate() == []
    before = snapshot()
    tasks.demotion_policy_propagate.delay("partly_false")
    assert snapshot() == before


@pytest.mark.django_db
def test_it_propagates_a_policy_change_whose_enqueue_was_lost(rate, alice, ada):
    post = PostFactory()
    rate(post, alice, "missing_context")
    policy = DemotionPolicy.objects.get(verdict="missing_context")
    # No on-commit callbacks run here: as if the broker was down when the admin saved.
    demotion_policy_update(policy=policy, actor=ada, multiplier=0.8, show_label=True, strike=False)
    assert Demotion.objects.get(post=post).multiplier == 1.0
    assert selectors.policies_to_propagate() == ["missing_context"]
    tasks.demotion_reconcile.delay()
    assert Demotion.objects.get(post=post).multiplier == 0.8
    assert selectors.policies_to_propagate() == []


def test_it_retries_a_database_error_with_backoff():
    options = tasks.demotion_apply
    assert issubclass(DatabaseOperationalError, options.autoretry_for)
    assert options.retry_backoff is True
    assert options.acks_late is True
    assert options.reject_on_worker_lost is True


# --- the reconciler ---------------------------------------------------------------------------


def _stale(post, partner, verdict="false", seconds=60):
    rating = RatingFactory(post=post, partner=partner, verdict=verdict)
    Rating.objects.filter(pk=rating.pk).update(
        created_at=timezone.now() - timedelta(seconds=seconds)
    )
    return rating


@pytest.mark.django_db
def test_it_reconciles_a_rating_whose_demotion_was_never_applied(partner_a):
    lost = _stale(PostFactory(), partner_a, seconds=60)
    fresh = _stale(PostFactory(), partner_a, seconds=1)  # its own task may still be on the way
    assert tasks.demotion_reconcile.delay().get() == 1
    lost.refresh_from_db()
    fresh.refresh_from_db()
    assert lost.demotion_applied_at is not None
    assert fresh.demotion_applied_at is None
    assert Demotion.objects.get(post=lost.post).multiplier == 0.2
    assert not Demotion.objects.filter(post=fresh.post).exists()
    # Nothing left to do: a second run enqueues nothing and writes nothing.
    before = snapshot()
    assert tasks.demotion_reconcile.delay().get() == 0
    assert snapshot() == before


@pytest.mark.django_db
def test_it_saves_the_rating_while_the_broker_is_down_and_the_reconciler_applies_it(
    alice, django_capture_on_commit_callbacks, caplog
):
    post = PostFactory(status=Post.Status.IN_REVIEW)
    broker_down = OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
    with (
        mock.patch.object(tasks.demotion_apply, "apply_async", side_effect=broker_down),
        django_capture_on_commit_callbacks(execute=True),
    ):
        rating = rating_create(
            post=post,
            partner=alice.memberships.get().partner,
            checker=alice,
            verdict="false",
            headline="Fabricated quote",
            article_url="https://factcheck.example/quote",
        )
    assert "reconciler will retry" in caplog.text
    rating.refresh_from_db()
    assert rating.demotion_applied_at is None
    assert not Demotion.objects.exists()
    assert selectors.demotion_state(post=post)["state"] == "pending"

    Rating.objects.filter(pk=rating.pk).update(created_at=timezone.now() - timedelta(minutes=2))
    tasks.demotion_reconcile.delay()
    assert Demotion.objects.get(post=post).multiplier == 0.2
    assert selectors.demotion_state(post=post)["state"] == "applied"


@pytest.mark.django_db
def test_it_reconciles_posts_of_a_penalised_author_that_have_no_row(rate, alice):
    for post in [PostFactory(author_external_id="author-x") for _ in range(3)]:
        rate(post, alice, "false")
    newcomer = PostFactory(author_external_id="author-x")
    assert tasks.demotion_reconcile.delay().get() == 1
    assert Demotion.objects.get(post=newcomer).multiplier == 0.5
