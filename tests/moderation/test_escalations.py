from datetime import timedelta
from unittest import mock

import pytest
from django.core import mail
from django.db import IntegrityError, transaction
from django.utils import timezone
from kombu.exceptions import OperationalError

from factcheck.core.models import AuditEvent
from factcheck.moderation import services, tasks
from factcheck.moderation.models import (
    Escalation,
    EscalationSignal,
    Notification,
    PendingScreening,
    Source,
    Tier,
)
from factcheck.posts.models import Post
from factcheck.ratings.models import Rating
from factcheck.ratings.signals import rating_created
from tests.factories import EscalationFactory, PostFactory, RatingFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_it_opens_an_escalation_with_the_tiers_sla(moe, add_signal, settings):
    settings.FACTCHECK_SLA_URGENT_MINUTES = 45
    post = PostFactory()
    before = timezone.now()
    outcome = add_signal(post, tier=Tier.URGENT, categories=["violence"])
    escalation = outcome.escalation
    assert outcome.event == Notification.Event.CREATED
    assert escalation.status == Escalation.Status.OPEN
    assert escalation.tier == Tier.URGENT
    assert before + timedelta(minutes=45) <= escalation.sla_due_at
    assert escalation.sla_due_at <= timezone.now() + timedelta(minutes=45)
    assert escalation.categories == ["violence"]
    assert escalation.sources == ["scorer"]
    assert AuditEvent.objects.filter(action="escalation.created").count() == 1


def test_it_adds_nothing_for_the_same_signal_twice(moe, add_signal):
    post = PostFactory()
    first = add_signal(post, key="scorer:same")
    again = add_signal(post, key="scorer:same")
    assert again.signal is None
    assert again.escalation == first.escalation
    assert EscalationSignal.objects.count() == 1
    assert Notification.objects.count() == 1
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == ["moe@example.com"]


def test_it_collects_signals_on_one_open_escalation(moe, add_signal):
    post = PostFactory()
    add_signal(post, key="a", tier=Tier.HIGH, source=Source.SCORER)
    add_signal(post, key="b", tier=Tier.NORMAL, source=Source.USER_REPORTS, categories=["hate"])
    escalation = Escalation.objects.get()
    assert escalation.signals.count() == 2
    assert escalation.tier == Tier.HIGH  # a lower tier never lowers it
    assert escalation.sources == ["scorer", "user_reports"]
    assert escalation.categories == ["hate", "violence"]
    assert Notification.objects.count() == 1  # no rise, no second notification
    assert len(mail.outbox) == 1


def test_it_notifies_again_when_the_tier_rises(moe, add_signal, settings):
    settings.FACTCHECK_SLA_URGENT_MINUTES = 60
    post = PostFactory()
    first = add_signal(post, key="a", tier=Tier.NORMAL)
    raised = add_signal(post, key="b", tier=Tier.URGENT)
    assert raised.event == Notification.Event.RAISED
    escalation = raised.escalation
    assert escalation.tier == Tier.URGENT
    assert escalation.sla_due_at < first.escalation.sla_due_at
    assert escalation.sla_due_at <= timezone.now() + timedelta(minutes=60)
    assert list(Notification.objects.order_by("id").values_list("event", "tier")) == [
        ("created", Tier.NORMAL),
        ("raised", Tier.URGENT),
    ]
    assert [message.subject.split("]")[0] for message in mail.outbox] == ["[Normal", "[Urgent"]
    # The same rise again (another signal of that tier) tells no one.
    add_signal(post, key="c", tier=Tier.URGENT)
    assert Notification.objects.count() == 2
    assert len(mail.outbox) == 2


def test_it_emails_every_active_moderator_and_nobody_else(moe, alice, ada, add_signal):
    from django.contrib.auth.models import Group

    group = Group.objects.get(name="moderators")
    mia = UserFactory(email="mia@example.com")
    mia.groups.add(group)
    gone = UserFactory(email="gone@example.com", is_active=False)
    gone.groups.add(group)
    add_signal(PostFactory(text="<b>hostile</b>"))
    assert sorted(message.to[0] for message in mail.outbox) == [
        "mia@example.com",
        "moe@example.com",
    ]
    message = mail.outbox[0]
    escalation = Escalation.objects.get()
    assert f"https://factcheck.example/moderation/{escalation.pk}/" in message.body
    assert "hostile" not in message.subject
    assert Notification.objects.get().email_recipients == 2


def test_it_sends_the_email_only_once_when_the_task_runs_twice(moe, add_signal):
    add_signal(PostFactory())
    notification = Notification.objects.get()
    tasks.notification_emails_send([notification.pk])
    assert len(mail.outbox) == 1


def test_it_holds_one_open_escalation_per_post_in_the_database():
    post = PostFactory()
    EscalationFactory(post=post)
    with pytest.raises(IntegrityError), transaction.atomic():
        EscalationFactory(post=post)
    EscalationFactory(post=post, status="decided", action="keep")
    assert Escalation.objects.filter(post=post).count() == 2


def _decide(escalation, user, action="keep", **extra):
    return services.escalation_decide(
        escalation=escalation,
        user=user,
        action=action,
        policy_code=extra.get("policy_code", "violence.threat" if action != "keep" else ""),
        note=extra.get("note", "Decided in a test." if action != "keep" else ""),
        context_flags=extra.get("context_flags", []),
        version=Escalation.objects.get(pk=escalation.pk).version,
    )


def test_it_reopens_a_decided_escalation_for_a_higher_tier(moe, add_signal):
    post = PostFactory()
    escalation = add_signal(post, key="a", tier=Tier.NORMAL).escalation
    _decide(escalation, moe, "keep")
    mail.outbox.clear()

    same = add_signal(post, key="b", tier=Tier.NORMAL)
    assert same.event is None
    assert Escalation.objects.get(pk=escalation.pk).status == Escalation.Status.DECIDED
    assert same.signal.escalation_id == escalation.pk  # kept as evidence
    assert mail.outbox == []

    higher = add_signal(post, key="c", tier=Tier.HIGH)
    assert higher.event == Notification.Event.REOPENED
    reopened = Escalation.objects.get(pk=escalation.pk)
    assert reopened.status == Escalation.Status.OPEN
    assert reopened.tier == Tier.HIGH
    assert reopened.reopened_at is not None
    assert reopened.action == "keep"  # the earlier decision stays visible until the next one
    assert Escalation.objects.filter(post=post).count() == 1
    assert len(mail.outbox) == 1
    assert "reopened" in mail.outbox[0].subject


def test_it_does_not_reopen_for_a_removed_post(moe, add_signal):
    post = PostFactory()
    escalation = add_signal(post, key="a", tier=Tier.HIGH).escalation
    _decide(escalation, moe, "remove")
    outcome = add_signal(post, key="b", tier=Tier.URGENT)
    assert outcome.event is None
    assert Escalation.objects.get(pk=escalation.pk).status == Escalation.Status.DECIDED
    assert Post.objects.get(pk=post.pk).status == Post.Status.REMOVED


def test_it_escalates_a_checkers_flag_at_tier_high(
    moe, alice, partner_a, django_capture_on_commit_callbacks
):
    post = PostFactory()
    rating = RatingFactory(
        post=post,
        partner=partner_a,
        checker=alice,
        attacks_protected_group=True,
        target_group="migrants",
    )
    with django_capture_on_commit_callbacks(execute=True):
        rating_created.send(sender=Rating, rating=rating)
        rating_created.send(sender=Rating, rating=rating)  # delivered twice: one signal
    escalation = Escalation.objects.get(post=post)
    assert escalation.tier == Tier.HIGH
    assert escalation.categories == ["hate"]
    signal = escalation.signals.get()
    assert signal.source == Source.CHECKER_FLAG
    assert signal.rating == rating
    assert signal.details["target_group"] == "migrants"
    assert signal.details["checker"] == "Alice"
    assert len(mail.outbox) == 1
    assert AuditEvent.objects.get(action="escalation.created").actor == alice


def test_it_ignores_a_rating_without_flags(moe, partner_a):
    rating = RatingFactory(partner=partner_a)
    rating_created.send(sender=Rating, rating=rating)
    assert not Escalation.objects.exists()


def test_it_survives_a_broker_outage_and_the_reconciler_catches_up(moe, partner_a, caplog):
    rating = RatingFactory(partner=partner_a, advocates_violence=True)
    down = OperationalError("Error 111 connecting to redis. Connection refused.")
    with mock.patch.object(tasks.rating_flag_escalate, "delay", side_effect=down):
        rating_created.send(sender=Rating, rating=rating)  # must not raise into the caller
    assert not Escalation.objects.exists()
    assert "moderation reconciler" in caplog.text

    # Too fresh: the task may still be on its way.
    assert services.moderation_reconcile()["flags"] == 0
    result = services.moderation_reconcile(now=timezone.now() + timedelta(minutes=5))
    assert result["flags"] == 1
    assert Escalation.objects.get().signals.get().rating == rating
    again = services.moderation_reconcile(now=timezone.now() + timedelta(minutes=5))
    assert again["flags"] == 0


def test_it_keeps_an_ingest_batch_whose_screening_could_not_be_sent(settings):
    from factcheck.moderation.receivers import screen_ingested_posts

    post = PostFactory()
    down = OperationalError("Connection refused.")
    with mock.patch.object(tasks.posts_screen, "delay", side_effect=down):
        screen_ingested_posts(sender=Post, post_ids=[post.pk], text_changed_ids=[post.pk])
    pending = PendingScreening.objects.get()
    assert pending.post_ids == [post.pk]
    with mock.patch.object(tasks.posts_screen, "delay") as delay:
        assert services.moderation_reconcile()["screenings"] == 1
    delay.assert_called_once_with([post.pk], [post.pk])
    assert not PendingScreening.objects.exists()


def test_it_sends_a_notification_email_whose_task_was_lost(moe):
    # Without running the on-commit callbacks, the email task is never sent: as if the
    # broker had lost it.
    services.escalation_signal_add(
        post=PostFactory(),
        source=Source.SCORER,
        tier=Tier.URGENT,
        score=0.95,
        details={},
        dedupe_key="k",
    )
    assert mail.outbox == []
    assert services.moderation_reconcile()["emails"] == 0  # too fresh to call lost
    later = timezone.now() + timedelta(minutes=5)
    assert services.moderation_reconcile(now=later)["emails"] == 1
    assert len(mail.outbox) == 1
    assert services.moderation_reconcile(now=later)["emails"] == 0


# --- batches -------------------------------------------------------------------------------


def _new_signal(post, key, tier, *, score=None, categories=("violence",), source=Source.SCORER):
    return services.NewSignal(
        post_id=post.pk,
        source=source,
        tier=tier,
        score=score,
        details={"note": "test"},
        dedupe_key=f"{post.pk}:{key}",
        categories=list(categories),
    )


def _told(post):
    """What moderators and the audit log were told about the post's escalation, without
    the ids and times that differ from post to post."""
    escalation = Escalation.objects.get(post=post)
    audit = AuditEvent.objects.filter(
        object_type="moderation.escalation", object_id=str(escalation.pk)
    ).order_by("id")
    subjects = [m.subject for m in mail.outbox if m.subject.endswith(f": post {post.external_id}")]
    return {
        "escalation": [
            escalation.status,
            escalation.tier,
            escalation.version,
            escalation.score,
            escalation.categories,
            escalation.sources,
            escalation.reopened_at is not None,
        ],
        "signals": list(escalation.signals.order_by("id").values_list("source", "tier", "score")),
        "notifications": [
            (n.event, n.tier, [n.payload["escalation"][k] for k in ("tier", "categories", "score")])
            for n in escalation.notifications.order_by("id")
        ],
        "audit": [
            (
                event.action,
                event.object_repr.split(" ")[2],  # the tier when it happened: "(normal)"
                event.before and {k: v for k, v in event.before.items() if k != "sla_due_at"},
                {k: v for k, v in event.after.items() if k != "sla_due_at"},
            )
            for event in audit
        ],
        "emails": [subject.split(" #")[0] for subject in subjects],
    }


@pytest.mark.parametrize(
    "decided_first",
    [False, True],
    ids=["open a new escalation", "reopen a decided one"],
)
def test_it_records_a_batch_as_if_one_signal_came_after_another(
    moe, decided_first, django_capture_on_commit_callbacks
):
    one_by_one, batched = PostFactory(), PostFactory()
    for post in (one_by_one, batched):
        if decided_first:
            first = _new_signal(post, "first", Tier.NORMAL, score=0.7)
            with django_capture_on_commit_callbacks(execute=True):
                services.escalation_signals_add(signals=[first])
            _decide(Escalation.objects.get(post=post), moe, "keep")

    def signals(post):
        return [
            _new_signal(post, "a", Tier.NORMAL, score=0.75, categories=["hate"]),
            _new_signal(post, "b", Tier.HIGH, score=0.8, source=Source.USER_REPORTS),
            _new_signal(post, "a", Tier.NORMAL, score=0.75, categories=["hate"]),  # again
            _new_signal(post, "c", Tier.URGENT, score=0.95),
            _new_signal(post, "d", Tier.HIGH, score=0.9),
        ]

    with django_capture_on_commit_callbacks(execute=True):
        sequential = [services.escalation_signals_add(signals=[s])[0] for s in signals(one_by_one)]
    with django_capture_on_commit_callbacks(execute=True):
        batch = services.escalation_signals_add(signals=signals(batched))

    assert [o.event for o in batch] == [o.event for o in sequential]
    assert [o.signal is None for o in batch] == [False, False, True, False, False]
    assert _told(batched) == _told(one_by_one)
    events = [event for event, *_ in _told(batched)["notifications"]]
    if decided_first:
        # The normal signal stays evidence on the decided escalation; high reopens it.
        assert events == ["created", "reopened", "raised"]
    else:
        assert events == ["created", "raised", "raised"]
    assert len(_told(batched)["emails"]) == len(events)


def test_it_raises_an_open_escalation_from_a_batch_and_tells_moderators_once(
    moe, add_signal, django_capture_on_commit_callbacks
):
    post, other = PostFactory(), PostFactory()
    escalation = add_signal(post, key="first", tier=Tier.NORMAL).escalation
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        outcomes = services.escalation_signals_add(
            signals=[
                _new_signal(post, "x", Tier.URGENT, score=0.9),
                _new_signal(other, "y", Tier.NORMAL, score=0.8),
                _new_signal(post, "z", Tier.URGENT, score=0.95),
            ]
        )
    assert [outcome.event for outcome in outcomes] == ["raised", "created", None]
    raised = Escalation.objects.get(pk=escalation.pk)
    assert (raised.tier, raised.version, raised.score) == (Tier.URGENT, 3, 0.95)
    assert list(raised.notifications.values_list("event", "tier").order_by("id")) == [
        ("created", Tier.NORMAL),
        ("raised", Tier.URGENT),
    ]
    assert sorted(message.subject.split(" #")[0] for message in mail.outbox) == [
        "[Normal] New escalation",
        "[Urgent] Escalation raised",
    ]


def test_it_sends_the_notifications_a_failed_send_left_when_the_task_runs_again(moe):
    from django.core.mail.backends.locmem import EmailBackend

    posts = [PostFactory() for _ in range(3)]
    # The on-commit email task is not run here; the test runs it.
    services.escalation_signals_add(signals=[_new_signal(post, "k", Tier.HIGH) for post in posts])
    ids = list(Notification.objects.order_by("id").values_list("pk", flat=True))
    send = EmailBackend.send_messages
    calls = []

    def lost_on_the_second(backend, messages):
        calls.append(messages)
        if len(calls) == 2:
            raise OSError("SMTP connection lost")
        return send(backend, messages)

    with (
        mock.patch.object(EmailBackend, "send_messages", lost_on_the_second),
        pytest.raises(OSError),
    ):
        tasks.notification_emails_send(ids)
    emailed = dict(Notification.objects.values_list("pk", "email_sent_at"))
    assert [emailed[pk] is not None for pk in ids] == [True, False, False]
    assert len(mail.outbox) == 1

    assert tasks.notification_emails_send(ids) == 2  # the retry
    assert tasks.notification_emails_send(ids) == 0
    assert len({message.subject for message in mail.outbox}) == len(mail.outbox) == 3
    assert set(Notification.objects.values_list("email_recipients", flat=True)) == {1}
