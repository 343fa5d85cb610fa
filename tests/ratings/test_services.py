from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.utils import timezone

from factcheck.core.models import AuditEvent
from factcheck.posts.models import Post
from factcheck.ratings.models import Rating
from factcheck.ratings.services import rating_create
from factcheck.ratings.signals import rating_created
from tests.factories import PostFactory

ARTICLE = "https://factcheck.example/articles/moon-landing"


def _rate(post, checker, verdict="false", **fields):
    fields.setdefault("headline", "The photo is from 2015, not from this week")
    fields.setdefault("article_url", ARTICLE)
    return rating_create(
        post=post,
        partner=checker.memberships.get().partner,
        checker=checker,
        verdict=verdict,
        **fields,
    )


@pytest.mark.django_db
def test_it_saves_the_first_rating_as_version_1_and_marks_the_post_rated(alice, partner_a):
    post = PostFactory(status=Post.Status.IN_REVIEW)
    rating = _rate(
        post,
        alice,
        summary="Reverse image search finds it in 2015.",
        sources=["https://archive.example/a", " https://archive.example/b "],
    )
    assert rating.version == 1
    assert rating.supersedes is None
    assert rating.partner == partner_a
    assert rating.checker == alice
    assert rating.sources == ["https://archive.example/a", "https://archive.example/b"]
    assert rating.demotion_applied_at is None
    post.refresh_from_db()
    assert post.status == Post.Status.RATED


@pytest.mark.django_db
def test_it_keeps_history_a_correction_is_a_new_version(alice, anna, bob):
    post = PostFactory()
    first = _rate(post, alice, "false")
    second = _rate(post, anna, "partly_false", headline="Partly false after all")
    other_partner = _rate(post, bob, "true", article_url="")
    assert (second.version, second.supersedes) == (2, first)
    assert (other_partner.version, other_partner.supersedes) == (1, None)
    first.refresh_from_db()
    assert first.verdict == "false"  # untouched: append-only
    assert Rating.objects.filter(post=post).count() == 3


@pytest.mark.django_db
def test_it_marks_the_post_ineligible_only_while_no_partner_found_more(alice, bob):
    post = PostFactory()
    _rate(post, alice, "not_eligible", article_url="")
    post.refresh_from_db()
    assert post.status == Post.Status.INELIGIBLE

    other = PostFactory()
    _rate(other, bob, "false")
    _rate(other, alice, "not_eligible", article_url="")
    other.refresh_from_db()
    assert other.status == Post.Status.RATED


@pytest.mark.django_db
def test_it_leaves_a_removed_post_removed(alice):
    post = PostFactory(status=Post.Status.REMOVED)
    _rate(post, alice, "false")
    post.refresh_from_db()
    assert post.status == Post.Status.REMOVED


@pytest.mark.django_db
@pytest.mark.parametrize("verdict", ["true", "satire", "not_eligible"])
def test_it_needs_no_article_for_true_satire_or_not_eligible(alice, verdict):
    rating = _rate(PostFactory(), alice, verdict, article_url="")
    assert rating.article_url == ""


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"headline": "   "}, "headline", "Write a headline"),
        ({"headline": "x" * 201}, "headline", "200 characters"),
        ({"article_url": ""}, "article_url", "needs the URL of the fact-check article"),
        ({"article_url": "javascript:alert(1)"}, "article_url", "http:// or https://"),
        ({"article_url": "ftp://files.example/a"}, "article_url", "http:// or https://"),
        ({"sources": ["https://ok.example", "not a url"]}, "sources", "'not a url'"),
        ({"attacks_protected_group": True}, "target_group", "Name the group"),
        ({"verdict": "mostly_true"}, "verdict", "Choose a verdict"),
    ],
)
def test_it_rejects_bad_input_by_field_and_saves_nothing(alice, fields, field, message):
    post = PostFactory()
    verdict = fields.pop("verdict", "false")
    with pytest.raises(ValidationError) as caught:
        _rate(post, alice, verdict, **fields)
    errors = caught.value.message_dict
    assert list(errors) == [field]
    assert message in errors[field][0]
    assert not Rating.objects.exists()
    assert not AuditEvent.objects.filter(action="rating.create").exists()
    post.refresh_from_db()
    assert post.status == Post.Status.QUEUED


@pytest.mark.django_db
def test_it_reports_every_bad_field_at_once(alice):
    with pytest.raises(ValidationError) as caught:
        _rate(PostFactory(), alice, headline="", article_url="", sources=["nope"])
    assert set(caught.value.message_dict) == {"headline", "article_url", "sources"}


@pytest.mark.django_db
def test_it_refuses_a_suspended_or_unaccredited_partner(alice, partner_a):
    post = PostFactory()
    partner_a.status = "suspended"
    partner_a.save()
    with pytest.raises(PermissionDenied):
        _rate(post, alice)
    partner_a.status = "active"
    partner_a.accredited_until = timezone.localdate() - timedelta(days=1)
    partner_a.save()
    with pytest.raises(PermissionDenied):
        _rate(post, alice)
    assert not Rating.objects.exists()


@pytest.mark.django_db
def test_it_audits_the_rating(alice):
    post = PostFactory(status=Post.Status.IN_REVIEW)
    rating = _rate(post, alice, attacks_protected_group=True, target_group="migrants")
    event = AuditEvent.objects.get(action="rating.create")
    assert event.actor == alice
    assert event.object_id == str(rating.pk)
    assert event.before == {"post_status": "in_review"}
    assert event.after["verdict"] == "false"
    assert event.after["post_status"] == "rated"
    assert event.after["flags"]["target_group"] == "migrants"


@pytest.mark.django_db
def test_it_sends_rating_created_only_once_committed(alice, django_capture_on_commit_callbacks):
    received = []

    def receiver(sender, rating, **kwargs):
        received.append(rating.pk)

    rating_created.connect(receiver)
    try:
        with django_capture_on_commit_callbacks() as callbacks:
            rating = _rate(PostFactory(), alice)
        assert received == []  # not before the commit
        for callback in callbacks:
            callback()
        assert received == [rating.pk]
    finally:
        rating_created.disconnect(receiver)
