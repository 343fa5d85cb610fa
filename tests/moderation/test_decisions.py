import threading
import time
from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.utils import timezone

from factcheck.core.models import AuditEvent
from factcheck.demotion.services import demotion_apply
from factcheck.moderation import selectors, services, tasks
from factcheck.moderation.models import Escalation, Removal, Tier
from factcheck.posts.models import Post
from tests.factories import (
    EscalationFactory,
    PostFactory,
    RatingFactory,
    UserFactory,
    make_token,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def mia(db):
    """A second moderator."""
    user = UserFactory(email="mia@example.com", name="Mia")
    user.groups.add(Group.objects.get_or_create(name="moderators")[0])
    return user


def _lookup(client, *external_ids):
    token = make_token("demotions:read", name="ranker")
    response = client.post(
        "/api/v1/demotions/lookup",
        {"post_ids": list(external_ids)},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {token}",
    )
    assert response.status_code == 200
    return response.json()["demotions"]


def _decide(escalation, user, action, *, version=None, policy_code="violence.threat", note="n"):
    return services.escalation_decide(
        escalation=escalation,
        user=user,
        action=action,
        policy_code=policy_code,
        note=note,
        context_flags=["newsworthy"],
        version=escalation.version if version is None else version,
    )


def test_it_orders_the_queue_by_tier_then_sla_then_trending(moe):
    now = timezone.now()
    normal_soon = EscalationFactory(tier=Tier.NORMAL, sla_due_at=now + timedelta(minutes=5))
    high_late = EscalationFactory(
        tier=Tier.HIGH, sla_due_at=now + timedelta(hours=20), post__trending_score=9000
    )
    high_early = EscalationFactory(
        tier=Tier.HIGH, sla_due_at=now + timedelta(hours=2), post__trending_score=1
    )
    urgent = EscalationFactory(tier=Tier.URGENT, sla_due_at=now + timedelta(minutes=50))
    same_due = now + timedelta(hours=30)
    high_tie_cold = EscalationFactory(tier=Tier.HIGH, sla_due_at=same_due, post__trending_score=5)
    high_tie_hot = EscalationFactory(tier=Tier.HIGH, sla_due_at=same_due, post__trending_score=50)
    EscalationFactory(tier=Tier.URGENT, status="decided", action="keep")  # not in the queue
    assert list(selectors.escalation_queue(user=moe)) == [
        urgent,
        high_early,
        high_late,
        high_tie_hot,
        high_tie_cold,
        normal_soon,
    ]


def test_it_filters_the_queue(moe, mia):
    urgent = EscalationFactory(tier=Tier.URGENT, sources=["scorer"])
    mine = EscalationFactory(tier=Tier.HIGH)
    services.escalation_claim(escalation=mine, user=moe)
    theirs = EscalationFactory(tier=Tier.HIGH)
    services.escalation_claim(escalation=theirs, user=mia)
    from factcheck.moderation.models import EscalationSignal

    EscalationSignal.objects.create(
        escalation=urgent, source="scorer", tier=Tier.URGENT, dedupe_key="x"
    )
    assert list(selectors.escalation_queue(user=moe, tier="urgent")) == [urgent]
    assert list(selectors.escalation_queue(user=moe, source="scorer")) == [urgent]
    assert list(selectors.escalation_queue(user=moe, claim="mine")) == [mine]
    assert set(selectors.escalation_queue(user=moe, claim="unclaimed")) == {urgent}


def test_it_gives_a_claim_to_one_moderator_at_a_time(moe, mia, settings):
    settings.FACTCHECK_MODERATION_CLAIM_MINUTES = 15
    escalation = EscalationFactory()
    claimed = services.escalation_claim(escalation=escalation, user=moe)
    assert claimed.claimed_by == moe
    assert claimed.claim_expires_at > timezone.now() + timedelta(minutes=14)
    with pytest.raises(services.EscalationConflict, match="Moe is working on this escalation"):
        services.escalation_claim(escalation=escalation, user=mia)
    # A lapsed lease is anyone's.
    Escalation.objects.filter(pk=escalation.pk).update(
        claim_expires_at=timezone.now() - timedelta(seconds=1)
    )
    assert services.escalation_claim(escalation=escalation, user=mia).claimed_by == mia


def test_it_expires_lapsed_claims(moe):
    lapsed = EscalationFactory(
        claimed_by=moe, claim_expires_at=timezone.now() - timedelta(minutes=1)
    )
    live = EscalationFactory(claimed_by=moe, claim_expires_at=timezone.now() + timedelta(minutes=9))
    assert tasks.escalation_claims_expire() == 1
    assert tasks.escalation_claims_expire() == 0
    lapsed.refresh_from_db()
    live.refresh_from_db()
    assert lapsed.claimed_by is None
    assert live.claimed_by == moe


def test_it_removes_a_post_and_the_ranker_sees_it_at_once(moe, client):
    post = PostFactory(external_id="p-remove", status=Post.Status.RATED)
    escalation = EscalationFactory(post=post)
    decided = _decide(escalation, moe, "remove", policy_code="hate.dehumanisation")
    assert decided.status == Escalation.Status.DECIDED
    assert decided.version == escalation.version + 1
    assert decided.context_flags == ["newsworthy"]
    removal = Removal.objects.get()
    assert removal.post == post
    assert removal.previous_status == Post.Status.RATED
    assert removal.removed_by == moe
    assert removal.referral is False
    assert Post.objects.get(pk=post.pk).status == Post.Status.REMOVED
    assert _lookup(client, "p-remove") == {
        "p-remove": {"multiplier": 0.0, "label": "", "removed": True}
    }
    token = make_token("demotions:read", name="feed reader")
    feed = client.get(
        "/api/v1/demotions/changes?after=0", HTTP_AUTHORIZATION=f"Bearer {token}"
    ).json()
    assert feed["changes"][-1]["post_id"] == "p-remove"
    assert feed["changes"][-1]["removed"] is True
    assert AuditEvent.objects.filter(action="escalation.remove", actor=moe).exists()
    assert AuditEvent.objects.filter(action="post.remove").exists()


def test_it_refers_a_post_removing_it_and_marking_the_referral(moe, client):
    post = PostFactory(external_id="p-refer")
    _decide(EscalationFactory(post=post), moe, "refer", policy_code="violence.call_to_action")
    assert Removal.objects.get().referral is True
    assert _lookup(client, "p-refer")["p-refer"]["removed"] is True


def test_it_keeps_a_post_demoted_as_rated(moe, client, partner_a):
    post = PostFactory(external_id="p-keep", status=Post.Status.RATED)
    RatingFactory(post=post, partner=partner_a, verdict="partly_false", advocates_violence=True)
    demotion_apply(post_id=post.pk)
    rated = {"p-keep": {"multiplier": 0.5, "label": "partly_false", "removed": False}}
    assert _lookup(client, "p-keep") == rated
    _decide(EscalationFactory(post=post), moe, "keep", policy_code="", note="")
    assert not Removal.objects.exists()
    assert Post.objects.get(pk=post.pk).status == Post.Status.RATED
    assert _lookup(client, "p-keep") == rated


def test_it_never_touches_the_author(moe):
    post = PostFactory(author_external_id="author-1")
    sibling = PostFactory(author_external_id="author-1", status=Post.Status.QUEUED)
    _decide(EscalationFactory(post=post), moe, "remove")
    assert Post.objects.get(pk=sibling.pk).status == Post.Status.QUEUED


@pytest.mark.parametrize(
    ("action", "policy_code", "note", "field"),
    [
        ("remove", "violence.threat", "  ", "note"),
        ("refer", "", "imminent", "policy_code"),
        ("remove", "violence.made_up", "x", "policy_code"),
        ("delete", "violence.threat", "x", "action"),
    ],
)
def test_it_refuses_an_incomplete_decision(moe, action, policy_code, note, field):
    escalation = EscalationFactory()
    with pytest.raises(ValidationError) as excinfo:
        _decide(escalation, moe, action, policy_code=policy_code, note=note)
    assert field in excinfo.value.message_dict
    escalation.refresh_from_db()
    assert escalation.status == Escalation.Status.OPEN
    assert not Removal.objects.exists()


def test_it_refuses_a_decision_on_a_stale_version(moe, mia, add_signal):
    post = PostFactory()
    escalation = add_signal(post, key="a").escalation
    seen = escalation.version
    add_signal(post, key="b")  # new evidence while Moe reads
    with pytest.raises(services.EscalationConflict, match="changed since you opened it"):
        _decide(escalation, moe, "remove", version=seen)
    assert Post.objects.get(pk=post.pk).status != Post.Status.REMOVED
    current = Escalation.objects.get(pk=escalation.pk)
    _decide(current, moe, "remove")
    with pytest.raises(services.EscalationConflict, match="Moe already decided"):
        _decide(current, mia, "keep", policy_code="", note="")
    assert Removal.objects.count() == 1


def test_it_refuses_a_decision_while_another_moderator_holds_the_claim(moe, mia):
    escalation = EscalationFactory()
    services.escalation_claim(escalation=escalation, user=mia)
    with pytest.raises(services.EscalationConflict, match="Mia is working"):
        _decide(escalation, moe, "remove")
    assert _decide(escalation, mia, "remove").decided_by == mia


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_it_lets_exactly_one_of_concurrent_decisions_win(moe, mia):
    moderators = [moe, mia] + [UserFactory(email=f"mod{i}@example.com") for i in range(4)]
    group = Group.objects.get(name="moderators")
    for user in moderators:
        user.groups.add(group)
    post = PostFactory()
    escalation = EscalationFactory(post=post)
    barrier = threading.Barrier(len(moderators))
    outcomes = []

    def decide(user, action):
        try:
            barrier.wait()
            _decide(escalation, user, action, version=escalation.version)
            outcomes.append(("won", user.email, action))
        except services.EscalationConflict:
            outcomes.append(("lost", user.email, action))
        finally:
            connection.close()

    threads = [
        threading.Thread(target=decide, args=(user, "remove" if i % 2 else "keep"))
        for i, user in enumerate(moderators)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    winners = [outcome for outcome in outcomes if outcome[0] == "won"]
    assert len(outcomes) == len(moderators)
    assert len(winners) == 1
    escalation.refresh_from_db()
    assert escalation.decided_by.email == winners[0][1]
    assert escalation.action == winners[0][2]
    assert escalation.version == 2
    assert Removal.objects.count() == (1 if winners[0][2] == "remove" else 0)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_removal_and_a_new_signal_on_the_same_post_wait_for_each_other(moe):
    """A signal locks the post, then its escalation. A decision that locked the escalation
    first and the post second (to remove it) would deadlock with it."""
    post = PostFactory()
    escalation = EscalationFactory(post=post)
    signal_has_post = threading.Event()
    errors, decided = [], []

    def decide():
        try:
            signal_has_post.wait()
            decided.append(_decide(escalation, moe, "remove", version=escalation.version))
        except Exception as exc:  # reported below
            errors.append(exc)
        finally:
            connection.close()

    thread = threading.Thread(target=decide)
    thread.start()
    with transaction.atomic():
        # What escalation_signals_add does first: lock the post.
        list(Post.objects.select_for_update().filter(pk=post.pk).values_list("pk"))
        signal_has_post.set()
        _wait_until_a_backend_waits_for_a_lock(errors)
        # ...then the escalation, which the decision must not be holding.
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL lock_timeout = '5s'")
        list(Escalation.objects.select_for_update().filter(pk=escalation.pk).values_list("pk"))
    thread.join()

    assert errors == []
    assert decided and Post.objects.get(pk=post.pk).status == Post.Status.REMOVED


def _wait_until_a_backend_waits_for_a_lock(errors, seconds=10):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not errors:
        with connection.cursor() as cursor:
            # pg_locks, not pg_stat_activity: that one is read once per transaction.
            cursor.execute("SELECT count(*) FROM pg_locks WHERE NOT granted")
            if cursor.fetchone()[0]:
                return
        time.sleep(0.02)
    raise AssertionError(f"the decision never waited for the post: {errors}")
