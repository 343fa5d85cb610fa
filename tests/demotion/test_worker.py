"""Integration with a real Celery worker on Redis and PostgreSQL: ratings submitted here are
committed, enqueued on commit, and applied by another process."""

import threading

import pytest
import redis

from factcheck.celery import app as celery_app
from factcheck.demotion import tasks
from factcheck.demotion.models import Demotion, DemotionChange
from factcheck.ratings.models import Rating
from factcheck.ratings.services import rating_create
from tests.factories import PostFactory
from tests.worker import BROKER_URL, wait_for

pytestmark = [pytest.mark.postgres, pytest.mark.worker]


def _rate(post, checker, verdict):
    return rating_create(
        post=post,
        partner=checker.memberships.get().partner,
        checker=checker,
        verdict=verdict,
        headline=f"Rated {verdict}",
        article_url="https://factcheck.example/a",
    )


def _applied(posts) -> bool:
    ids = [post.pk for post in posts]
    return not Rating.objects.filter(post_id__in=ids, demotion_applied_at=None).exists()


def _idle() -> bool:
    """The queue is empty and no task is running."""
    if redis.Redis.from_url(BROKER_URL).llen("celery"):
        return False
    active = celery_app.control.inspect(timeout=1.0).active() or {}
    return bool(active) and not any(active.values())


def _values(post):
    return Demotion.objects.filter(post=post).values_list("multiplier", "label", "removed").get()


def test_it_turns_ratings_into_demotions_in_a_worker(celery_worker_process, alice, bob):
    worker = celery_worker_process
    posts = [PostFactory(author_external_id=f"author-{n}") for n in range(6)]
    verdicts = ["false", "altered", "partly_false", "missing_context", "true", "false"]
    for post, verdict in zip(posts, verdicts, strict=True):
        _rate(post, alice, verdict)
    _rate(posts[5], bob, "true")  # disagreement: the most severe counts
    wait_for(lambda: _applied(posts), seconds=60, what="the demotions", log=worker.log)
    assert [_values(post) for post in posts] == [
        (0.2, "false", False),
        (0.2, "altered", False),
        (0.5, "partly_false", False),
        (1.0, "missing_context", False),
        (1.0, "", False),
        (0.2, "false", False),
    ]
    # Applied over there, not eagerly in this process.
    assert "factcheck.demotion.tasks.demotion_apply" in worker.log()


def test_it_applies_concurrent_tasks_for_one_post_once(celery_worker_process, alice, bob):
    worker = celery_worker_process
    post = PostFactory()
    # Two partners rate at the same moment: two tasks, likely on both pool processes at once.
    threads = [
        threading.Thread(target=_rate, args=(post, checker, verdict))
        for checker, verdict in [(alice, "false"), (bob, "false")]
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for _ in range(10):
        tasks.demotion_apply.delay(post.pk)
    wait_for(lambda: _applied([post]), seconds=60, what="the demotion", log=worker.log)
    wait_for(_idle, seconds=60, what="the worker to finish", log=worker.log)
    assert _values(post) == (0.2, "false", False)
    assert list(DemotionChange.objects.values_list("external_id", "multiplier")) == [
        (post.external_id, 0.2)
    ]


def test_it_loses_nothing_when_the_worker_is_killed(celery_worker_process, alice):
    worker = celery_worker_process
    posts = [PostFactory(author_external_id=f"author-{n}") for n in range(40)]
    for index, post in enumerate(posts):
        if index == 20:
            worker.kill()  # kill -9, whatever it was doing
        _rate(post, alice, "false")
    worker.start()
    # The beat task, run now rather than waiting a minute; the worker's grace period is 0 s.
    tasks.demotion_reconcile.delay()
    wait_for(lambda: _applied(posts), seconds=90, what="every demotion", log=worker.log)
    assert Demotion.objects.filter(post__in=posts).count() == 40
    assert {_values(post) for post in posts} == {(0.2, "false", False)}
    assert DemotionChange.objects.filter(post__in=posts).count() == 40  # no duplicates
