"""PostgreSQL: concurrent demotion transactions, as several workers run them."""

import threading

import pytest
from django.db import connection, connections, transaction

from factcheck.demotion import services
from factcheck.demotion.models import Demotion, DemotionChange
from tests.factories import PostFactory, RatingFactory
from tests.worker import wait_for

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _in_thread(target):
    errors = []

    def run():
        try:
            target()
        except Exception as exc:  # reported to the test below
            errors.append(exc)
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, errors


def _waiting_on_a_lock() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND wait_event_type = 'Lock'"
        )
        return cursor.fetchone()[0]


def test_it_numbers_changes_in_commit_order(partner_a):
    first = PostFactory(author_external_id="author-1")
    second = PostFactory(author_external_id="author-2")  # another author: no shared row lock
    RatingFactory(post=first, partner=partner_a, verdict="false")
    RatingFactory(post=second, partner=partner_a, verdict="false")
    release = threading.Event()

    def slow_commit():
        with transaction.atomic():
            services.demotion_apply(post_id=first.pk)
            release.wait(30)  # seq taken, not yet committed

    def fast_commit():
        services.demotion_apply(post_id=second.pk)

    slow, slow_errors = _in_thread(slow_commit)
    wait_for(_counter_locked, seconds=30, what="the first transaction to take its number")
    fast, fast_errors = _in_thread(fast_commit)
    # The second transaction must queue behind the first for its number: if it could commit
    # a higher seq now, a ranker reading the feed would skip the first one for good.
    wait_for(_waiting_on_a_lock, seconds=30, what="the second transaction to wait its turn")
    assert not DemotionChange.objects.exists()
    release.set()
    slow.join()
    fast.join()
    assert slow_errors == fast_errors == []
    order = list(DemotionChange.objects.order_by("seq").values_list("post_id", flat=True))
    assert order == [first.pk, second.pk]


def _counter_locked() -> bool:
    """Another backend holds the sequence counter row (it has run its UPDATE, not committed)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation "
            "WHERE c.relname = 'demotion_demotionsequence' AND l.mode = 'RowExclusiveLock' "
            "AND l.pid <> pg_backend_pid()"
        )
        return cursor.fetchone()[0] > 0


def test_it_survives_many_concurrent_tasks_for_one_author(partner_a, partner_b):
    posts = [PostFactory(author_external_id="author-x") for _ in range(6)]
    for post in posts:
        RatingFactory(post=post, partner=partner_a, verdict="false")
        RatingFactory(post=post, partner=partner_b, verdict="altered")
    barrier = threading.Barrier(6)

    def apply(post):
        def run():
            barrier.wait(30)
            services.demotion_apply(post_id=post.pk)

        return run

    started = [_in_thread(apply(post)) for post in posts]
    for thread, _ in started:
        thread.join()
    assert [errors for _, errors in started] == [[]] * 6
    assert set(Demotion.objects.filter(post__in=posts).values_list("multiplier", "label")) == {
        (0.1, "false")
    }
    # Each post: first 0.2 (before the third strike) or straight 0.1; never a repeat.
    for post in posts:
        values = list(
            DemotionChange.objects.filter(post=post).order_by("seq").values_list("multiplier")
        )
        assert values in ([(0.2,), (0.1,)], [(0.1,)])
