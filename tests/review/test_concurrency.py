"""Many checkers pressing "Claim next" at once, on PostgreSQL (SQLite has one writer)."""

import threading
from collections import Counter
from datetime import timedelta

import pytest
from django.db import DatabaseError, connection
from django.utils import timezone
from psycopg.pq import TransactionStatus

from factcheck.core.models import AuditEvent
from factcheck.partners.models import User
from factcheck.posts.models import Post
from factcheck.review import services
from factcheck.review.models import Claim
from tests.factories import MembershipFactory, PartnerFactory

THREADS = 16
POSTS = 300


def _run_claimers(users, work):
    """Run ``work(user)`` in one thread per user, each on its own connection, all released
    together; returns what each thread returned and any exception raised."""
    start = threading.Barrier(len(users))
    results, errors = {}, []

    def target(user):
        try:
            start.wait()
            results[user.pk] = work(user)
        except Exception as exc:  # reported to the test below, not swallowed
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=target, args=(user,)) for user in users]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results, errors


def _claim_until_empty(user):
    user = User.objects.get(pk=user.pk)
    taken = []
    while (claim := services.claim_next(user=user)) is not None:
        taken.append(claim.post_id)
    return taken


def _make_posts(count, **extra):
    now = timezone.now()
    return Post.objects.bulk_create(
        Post(
            external_id=f"race-{i}",
            author_external_id=f"author-{i % 40}",
            language="en",
            published_at=now - timedelta(hours=1),
            trending_score=float(i % 97),  # many ties, to stress the ordering
            **extra,
        )
        for i in range(count)
    )


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_it_never_gives_one_post_to_two_checkers(settings):
    settings.FACTCHECK_MAX_CLAIMS = POSTS
    partners = [PartnerFactory(languages=["en"]) for _ in range(4)]
    users = [MembershipFactory(partner=partners[i % 4]).user for i in range(THREADS)]
    posts = _make_posts(POSTS)

    results, errors = _run_claimers(users, _claim_until_empty)

    assert errors == []
    taken = [post_id for claimed in results.values() for post_id in claimed]
    counts = Counter(taken)
    assert len(taken) == POSTS, "every post is claimed"
    assert set(counts.values()) == {1}, "and exactly once"
    assert set(counts) == {post.pk for post in posts}
    assert Claim.objects.filter(state=Claim.State.ACTIVE).count() == POSTS
    assert not Post.objects.exclude(status=Post.Status.IN_REVIEW).exists()
    # The work was shared: SKIP LOCKED let the threads pass each other by.
    assert sum(1 for claimed in results.values() if claimed) > 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_it_stays_exclusive_while_leases_expire_under_it(settings):
    """Half the posts carry stale leases; claimers and the beat sweep race for them."""
    settings.FACTCHECK_MAX_CLAIMS = POSTS
    partner = PartnerFactory(languages=["en"])
    users = [MembershipFactory(partner=partner).user for _ in range(THREADS)]
    posts = _make_posts(POSTS)
    old = timezone.now() - timedelta(hours=1)
    stale_holder = MembershipFactory(partner=partner).user
    stale = posts[::2]
    Post.objects.filter(pk__in=[p.pk for p in stale]).update(status=Post.Status.IN_REVIEW)
    Claim.objects.bulk_create(
        Claim(
            post=post,
            checker=stale_holder,
            partner=partner,
            claimed_at=old,
            expires_at=old + timedelta(minutes=20),
        )
        for post in stale
    )

    def work(user):
        if user == users[0]:
            services.claims_expire(batch=7)
        return _claim_until_empty(user)

    results, errors = _run_claimers(users, work)

    assert errors == []
    taken = Counter(post_id for claimed in results.values() for post_id in claimed)
    assert len(taken) == POSTS and set(taken.values()) == {1}
    assert Claim.objects.filter(state=Claim.State.ACTIVE, checker=stale_holder).count() == 0
    assert Claim.objects.filter(state=Claim.State.EXPIRED).count() == len(stale)
    assert Claim.objects.filter(state=Claim.State.ACTIVE).count() == POSTS


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_burst_of_clicks_by_one_checker_stays_within_the_limit(settings):
    settings.FACTCHECK_MAX_CLAIMS = 3
    user = MembershipFactory(partner=PartnerFactory(languages=["en"])).user
    _make_posts(40)
    same_user = [User.objects.get(pk=user.pk) for _ in range(THREADS)]

    def work(copy):
        try:
            return services.claim_next(user=copy) is not None
        except services.ClaimLimitReached:
            return False

    # Each copy is keyed by the same pk, so collect outcomes from the database instead.
    _, errors = _run_claimers(same_user, work)

    assert errors == []
    assert Claim.objects.filter(checker=user, state=Claim.State.ACTIVE).count() == 3


# --- outside a transaction: BEGIN, lock, take and COMMIT in one round trip ------------------


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_a_claim_is_committed_with_its_audit_event():
    partner = PartnerFactory(languages=["en"])
    user = MembershipFactory(partner=partner).user
    _make_posts(3)
    top = Post.objects.order_by("-trending_score", "pk").first()

    claim = services.claim_next(user=User.objects.get(pk=user.pk))

    assert connection.get_autocommit(), "not inside a transaction of the test's"
    assert claim.post_id == top.pk
    assert Claim.objects.get(post=top, state=Claim.State.ACTIVE).pk == claim.pk
    assert Post.objects.get(pk=top.pk).status == Post.Status.IN_REVIEW
    event = AuditEvent.objects.get(action="claim.create", object_id=str(claim.pk))
    assert event.actor_id == user.pk
    assert event.after["post_id"] == top.pk
    # Committed, and the connection is back to idle for whatever the request does next.
    assert connection.connection.info.transaction_status == TransactionStatus.IDLE


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_an_expired_lease_is_ended_before_the_take():
    partner = PartnerFactory(languages=["en"])
    holder, taker = (MembershipFactory(partner=partner).user for _ in range(2))
    posts = _make_posts(3)
    top = max(posts, key=lambda post: post.trending_score)
    Post.objects.filter(pk=top.pk).update(status=Post.Status.IN_REVIEW)
    old = timezone.now() - timedelta(hours=1)
    stale = Claim.objects.create(
        post=top, checker=holder, partner=partner, claimed_at=old, expires_at=old
    )

    claim = services.claim_next(user=User.objects.get(pk=taker.pk))

    assert claim.post_id == top.pk, "the expired lease's post is free, and the most trending"
    stale.refresh_from_db()
    assert stale.state == Claim.State.EXPIRED
    assert AuditEvent.objects.filter(action="claim.expire", object_id=str(stale.pk)).exists()
    assert Claim.objects.filter(state=Claim.State.ACTIVE).count() == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_a_failed_claim_writes_nothing_and_leaves_the_connection_usable(
    monkeypatch,
):
    partner = PartnerFactory(languages=["en"])
    user = User.objects.get(pk=MembershipFactory(partner=partner).user.pk)
    _make_posts(3)
    # The take fails on the server, after BEGIN and the lock went through.
    monkeypatch.setattr(services, "_claim_sql", lambda *args, **kwargs: "SELECT 1/0")

    with pytest.raises(DatabaseError):
        services.claim_next(user=user)

    assert connection.connection.info.transaction_status == TransactionStatus.IDLE
    assert not Claim.objects.exists()
    assert not Post.objects.exclude(status=Post.Status.QUEUED).exists()
    monkeypatch.undo()
    assert services.claim_next(user=user) is not None
