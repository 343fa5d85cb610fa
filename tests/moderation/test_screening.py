"""Signals from ingest: the scorer over new or changed texts, and user-report rates."""

from datetime import timedelta

import pytest
from django.core import mail

from factcheck.moderation.models import Escalation, EscalationSignal, Source, Tier
from tests.factories import make_token
from tests.posts.builders import NOW, iso, item

pytestmark = pytest.mark.django_db

THREAT = "I am going to find out where you live and put a bullet in your head"
NEUTRAL = "The city council approved the new bike lanes on Main Street today."


@pytest.fixture
def ingest(client, django_capture_on_commit_callbacks):
    token = make_token("ingest", name="platform")

    def send(*posts):
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(
                "/api/v1/posts/ingest",
                {"posts": list(posts)},
                content_type="application/json",
                HTTP_AUTHORIZATION=f"Bearer {token}",
            )
        assert response.status_code == 200, response.content
        return response

    return send


def _observed(post_id, *, hours_ago, views, hate=0, violence=0, text=NEUTRAL):
    return item(
        post_id,
        hours_ago=hours_ago,
        age_hours=12,
        text=text,
        metrics={
            "observed_at": iso(NOW - timedelta(hours=hours_ago)),
            "views": views,
            "reports_hate": hate,
            "reports_violence": violence,
        },
    )


@pytest.fixture
def no_scoring(settings):
    settings.FACTCHECK_SCORE_ON_INGEST = False
    settings.FACTCHECK_REPORT_RATE_THRESHOLD = 2.0
    settings.FACTCHECK_REPORT_RATE_HIGH = 10.0
    settings.FACTCHECK_REPORT_MIN_VIEWS = 500


def test_it_escalates_reports_rising_past_the_threshold(no_scoring, ingest, moe):
    ingest(_observed("p-r", hours_ago=3, views=10_000, hate=5))  # 0.5 per 1,000 views
    assert not Escalation.objects.exists()
    # 4,000 new views drew 16 more reports: 4 per 1,000 views.
    ingest(_observed("p-r", hours_ago=2, views=14_000, hate=15, violence=6))
    escalation = Escalation.objects.get()
    assert escalation.tier == Tier.NORMAL
    assert escalation.categories == ["hate", "violence"]
    signal = escalation.signals.get()
    assert signal.source == Source.USER_REPORTS
    assert signal.details["rate_per_1000_views"] == 4.0
    assert signal.details["views"] == 4000
    assert len(mail.outbox) == 1


def test_it_raises_the_tier_when_the_rate_is_very_high(no_scoring, ingest, moe):
    ingest(_observed("p-h", hours_ago=3, views=2_000, violence=3))  # 1.5: below
    assert not Escalation.objects.exists()
    ingest(_observed("p-h", hours_ago=2, views=3_000, violence=15))  # 12 per 1,000 new views
    assert Escalation.objects.get().tier == Tier.HIGH


def test_it_counts_the_first_snapshot_since_publication(no_scoring, ingest):
    ingest(_observed("p-1", hours_ago=1, views=1_000, hate=3))
    assert Escalation.objects.get().signals.get().details["from"] is None


def test_it_waits_for_enough_views(no_scoring, ingest):
    ingest(_observed("p-few", hours_ago=1, views=400, hate=40))
    assert not Escalation.objects.exists()


def test_it_does_not_repeat_a_signal_for_the_same_snapshot(no_scoring, ingest, moe):
    batch = _observed("p-same", hours_ago=1, views=1_000, hate=9)
    ingest(batch)
    ingest(batch)  # the platform resends the batch
    assert EscalationSignal.objects.count() == 1
    assert len(mail.outbox) == 1


def test_it_ignores_reports_that_stopped(no_scoring, ingest):
    ingest(_observed("p-calm", hours_ago=3, views=1_000, hate=1))
    ingest(_observed("p-calm", hours_ago=2, views=50_000, hate=1))
    assert not Escalation.objects.exists()


def test_it_scores_new_posts_and_escalates_a_threat(ingest, moe):
    ingest(
        _observed("p-threat", hours_ago=1, views=1_000, text=THREAT),
        _observed("p-calm", hours_ago=1, views=1_000, text=NEUTRAL),
    )
    escalation = Escalation.objects.get()
    assert escalation.post.external_id == "p-threat"
    assert escalation.tier == Tier.URGENT
    assert "violence" in escalation.categories
    signal = escalation.signals.get()
    assert signal.source == Source.SCORER
    assert signal.score >= 0.7
    spans = signal.details["result"]["attributes"]["THREAT"]["spans"]
    assert spans
    assert all(THREAT[span["start"] : span["end"]] == span["text"] for span in spans)
    assert len(mail.outbox) == 1
    assert mail.outbox[0].subject.startswith("[Urgent] New escalation")


def test_it_scores_a_text_once_until_it_changes(ingest):
    ingest(_observed("p-t", hours_ago=3, views=1_000, text=THREAT))
    ingest(_observed("p-t", hours_ago=2, views=2_000, text=THREAT))  # new snapshot, same text
    assert EscalationSignal.objects.count() == 1
    edited = THREAT + " and your family too"
    ingest(_observed("p-t", hours_ago=1, views=3_000, text=edited))
    assert EscalationSignal.objects.count() == 2
    assert Escalation.objects.count() == 1


def test_it_leaves_scoring_off_when_told(ingest, settings):
    settings.FACTCHECK_SCORE_ON_INGEST = False
    ingest(_observed("p-off", hours_ago=1, views=1_000, text=THREAT))
    assert not Escalation.objects.exists()


def test_it_counts_only_other_signals_for_a_language_without_rules(ingest):
    post = _observed("p-de", hours_ago=1, views=1_000, hate=30, text=THREAT)
    post["language"] = "de"
    ingest(post)
    escalation = Escalation.objects.get()
    assert escalation.sources == ["user_reports"]


def test_it_screens_a_batch_twice_without_doubling_anything(no_scoring, ingest, settings, moe):
    from factcheck.moderation import tasks
    from factcheck.posts.models import Post

    settings.FACTCHECK_SCORE_ON_INGEST = True
    ingest(_observed("p-twice", hours_ago=1, views=2_000, hate=30, text=THREAT))
    post = Post.objects.get(external_id="p-twice")
    assert EscalationSignal.objects.count() == 2  # the scorer and the reports
    tasks.posts_screen([post.pk], [post.pk])
    tasks.posts_screen([post.pk], [post.pk])
    assert EscalationSignal.objects.count() == 2
    assert Escalation.objects.count() == 1
    assert len(mail.outbox) == 1


def test_it_scores_copies_in_a_batch_once_and_escalates_each(ingest, moe):
    from unittest import mock

    from factcheck.moderation.scorer import get_scorer

    scorer = get_scorer()
    with mock.patch.object(scorer, "score", wraps=scorer.score) as score:
        ingest(*[_observed(f"p-copy-{n}", hours_ago=1, views=900, text=THREAT) for n in range(3)])
    assert score.call_count == 1
    assert Escalation.objects.count() == 3
    assert EscalationSignal.objects.filter(source=Source.SCORER).count() == 3


THREATS = [
    THREAT,
    "Someone should shoot that senator before he votes on this bill",
    "Lets burn the mosque down on friday, who's in?",
    "Migrants are vermin and should be exterminated",
]


def test_it_tells_every_moderator_once_about_each_post_a_batch_escalates(ingest, moe):
    from django.contrib.auth.models import Group

    from factcheck.moderation import tasks
    from factcheck.moderation.models import Notification
    from factcheck.posts.models import Post
    from tests.factories import UserFactory

    mia = UserFactory(email="mia@example.com")
    mia.groups.add(Group.objects.get(name="moderators"))
    batch = [
        _observed(f"p-{n}", hours_ago=1, views=1_000, text=text) for n, text in enumerate(THREATS)
    ]
    batch.append(_observed("p-calm", hours_ago=1, views=1_000, text=NEUTRAL))
    ingest(*batch)
    assert Escalation.objects.count() == 4
    assert set(Escalation.objects.values_list("post__external_id", flat=True)) == {
        "p-0",
        "p-1",
        "p-2",
        "p-3",
    }
    assert sorted(Notification.objects.values_list("escalation__post__external_id", "event")) == [
        (f"p-{n}", "created") for n in range(4)
    ]
    # One email per notification to each active moderator.
    sent = sorted((message.to[0], message.subject.split(": post ")[1]) for message in mail.outbox)
    assert sent == sorted(
        (email, f"p-{n}") for email in ("mia@example.com", "moe@example.com") for n in range(4)
    )
    assert set(Notification.objects.values_list("email_recipients", flat=True)) == {2}

    ids = list(Post.objects.values_list("pk", flat=True))
    tasks.posts_screen(ids, ids)  # the same batch screened again adds nothing
    assert EscalationSignal.objects.count() == 4
    assert Notification.objects.count() == 4
    assert len(mail.outbox) == 8


@pytest.mark.parametrize("escalating", [1, 20])
def test_it_screens_a_batch_in_the_same_queries_however_many_posts_escalate(
    escalating, moe, django_assert_num_queries, django_capture_on_commit_callbacks
):
    from factcheck.moderation import tasks
    from tests.factories import PostFactory

    posts = [PostFactory(text=f"{THREATS[n % 4]} #{n}") for n in range(escalating)]
    posts += [PostFactory(text=NEUTRAL) for _ in range(5)]
    ids = [post.pk for post in posts]
    # Screening reads 1 the texts and 2 the reported posts. Recording, in a savepoint (3, 11):
    # 4 lock the posts, 5 read the dedupe keys, 6 lock the escalations, insert 7 the
    # escalations, 8 the signals, 9 the audit events, 10 the notifications. The email task
    # on commit: 12 savepoint, 13 lock and 14 mark the unsent notifications, 15 release,
    # 16 read the moderators, 17 record the recipients.
    with django_assert_num_queries(17), django_capture_on_commit_callbacks(execute=True):
        result = tasks.posts_screen(ids, ids)
    assert result["scorer_signals"] == escalating
    assert Escalation.objects.count() == escalating
    assert len(mail.outbox) == escalating
