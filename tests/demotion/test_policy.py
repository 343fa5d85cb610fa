"""The demotion policy (DESIGN §4) as the ranker sees it."""

from datetime import timedelta

import pytest
from django.utils import timezone

from factcheck.demotion import selectors, services
from factcheck.demotion.models import AuthorStanding, Demotion, DemotionChange
from factcheck.posts.models import Post
from factcheck.ratings.models import Rating
from tests.factories import PostFactory, RatingFactory, make_token
from tests.posts.builders import item


def lookup(*posts) -> dict:
    rows = selectors.demotions_lookup(external_ids=[post.external_id for post in posts])
    return {eid: (multiplier, label, removed) for eid, multiplier, label, removed in rows}


def changes(post) -> list[tuple]:
    return list(
        DemotionChange.objects.filter(post=post)
        .order_by("seq")
        .values_list("multiplier", "label", "removed")
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("verdict", "expected"),
    [
        ("false", (0.2, "false", False)),
        ("altered", (0.2, "altered", False)),
        ("partly_false", (0.5, "partly_false", False)),
        ("missing_context", (1.0, "missing_context", False)),
        ("satire", (1.0, "satire", False)),
        ("true", None),
        ("not_eligible", None),
    ],
)
def test_it_demotes_and_labels_by_verdict(rate, alice, verdict, expected):
    post = PostFactory()
    rate(post, alice, verdict)
    assert lookup(post) == ({post.external_id: expected} if expected else {})
    demotion = Demotion.objects.get(post=post)
    assert demotion.verdict == verdict
    assert (
        demotion.reasons[0] == f"Rated {Rating(verdict=verdict).get_verdict_display()} by Partner A"
    )
    # A change only for what the ranker would see differ from "absent".
    assert changes(post) == ([expected] if expected else [])
    assert Rating.objects.get(post=post).demotion_applied_at is not None


@pytest.mark.django_db
def test_it_takes_the_most_severe_of_each_partners_latest_rating(rate, alice, bob):
    post = PostFactory()
    rate(post, bob, "true")
    rate(post, alice, "partly_false")
    assert lookup(post) == {post.external_id: (0.5, "partly_false", False)}
    rate(post, bob, "false")  # bob revises: now the most severe
    assert lookup(post) == {post.external_id: (0.2, "false", False)}
    demotion = Demotion.objects.get(post=post)
    assert demotion.reasons == [
        "Rated False by Partner B",
        "Rated Partly false by Partner A",
        "Partners disagree: the most severe latest rating counts",
    ]


@pytest.mark.django_db
def test_it_follows_a_partner_revising_its_own_rating_to_a_milder_one(rate, alice, anna, bob):
    post = PostFactory()
    rate(post, alice, "false")
    rate(post, anna, "missing_context")  # same partner: replaces alice's rating
    assert lookup(post) == {post.external_id: (1.0, "missing_context", False)}
    rate(post, anna, "true")
    assert lookup(post) == {}
    assert changes(post) == [
        (0.2, "false", False),
        (1.0, "missing_context", False),
        (1.0, "", False),
    ]

    # Another partner's "false" still stands when one partner turns milder.
    other = PostFactory()
    rate(other, alice, "false")
    rate(other, bob, "false")
    rate(other, anna, "true")
    assert lookup(other) == {other.external_id: (0.2, "false", False)}


@pytest.mark.django_db
def test_it_appends_no_change_when_a_new_version_changes_nothing_the_ranker_sees(rate, alice):
    post = PostFactory()
    rate(post, alice, "false")
    rate(post, alice, "false", headline="A clearer headline")
    assert changes(post) == [(0.2, "false", False)]
    assert Demotion.objects.get(post=post).version == 1


@pytest.mark.django_db
def test_it_gives_a_removed_post_zero_and_removed_and_keeps_its_label(rate, alice):
    post = PostFactory()
    rate(post, alice, "partly_false")
    Post.objects.filter(pk=post.pk).update(status=Post.Status.REMOVED)
    services.demotion_apply(post_id=post.pk)
    assert lookup(post) == {post.external_id: (0.0, "partly_false", True)}
    assert "Removed by a moderator" in Demotion.objects.get(post=post).reasons

    # Restored on appeal: back to the rating's demotion.
    Post.objects.filter(pk=post.pk).update(status=Post.Status.RATED)
    services.demotion_apply(post_id=post.pk)
    assert lookup(post) == {post.external_id: (0.5, "partly_false", False)}


@pytest.mark.django_db
def test_it_removes_an_unrated_post_too(db):
    post = PostFactory(status=Post.Status.REMOVED)
    demotion = services.demotion_apply(post_id=post.pk)
    assert (demotion.multiplier, demotion.label, demotion.removed) == (0.0, "", True)
    assert lookup(post) == {post.external_id: (0.0, "", True)}


@pytest.mark.django_db
def test_it_does_nothing_for_a_post_with_nothing_to_demote(db):
    post = PostFactory()
    assert services.demotion_apply(post_id=post.pk) is None
    assert services.demotion_apply(post_id=999_999) is None
    assert not Demotion.objects.exists()
    assert not DemotionChange.objects.exists()


# --- repeat offenders ------------------------------------------------------------------------


def _author_posts(count, author="author-x"):
    return [PostFactory(author_external_id=author) for _ in range(count)]


@pytest.mark.django_db
def test_it_penalises_an_author_after_three_strikes_on_all_their_posts(rate, alice):
    first, second, third, unrated = _author_posts(4)
    bystander = PostFactory(author_external_id="someone-else")
    rate(bystander, alice, "false")
    rate(first, alice, "false")
    rate(second, alice, "altered")
    assert AuthorStanding.objects.get(author_external_id="author-x").multiplier == 1.0
    assert lookup(unrated) == {}

    rate(third, alice, "false")
    standing = AuthorStanding.objects.get(author_external_id="author-x")
    assert (standing.strikes, standing.multiplier) == (3, 0.5)
    assert lookup(first, second, third, unrated, bystander) == {
        first.external_id: (0.1, "false", False),
        second.external_id: (0.1, "altered", False),
        third.external_id: (0.1, "false", False),
        # Never rated, yet demoted: absent would mean 1.0 to the ranker.
        unrated.external_id: (0.5, "", False),
        bystander.external_id: (0.2, "false", False),
    }
    demotion = Demotion.objects.get(post=unrated)
    assert (demotion.post_multiplier, demotion.author_multiplier) == (1.0, 0.5)
    assert demotion.reasons == [
        "Repeat offender: 3 or more strikes in 90 days, author multiplier ×0.5"
    ]
    assert changes(first) == [(0.2, "false", False), (0.1, "false", False)]


@pytest.mark.django_db
def test_it_counts_one_strike_per_post_however_many_partners_rate_it_false(rate, alice, anna, bob):
    first, second = _author_posts(2)
    rate(first, alice, "false")
    rate(first, bob, "false")
    rate(first, anna, "altered")  # partner A's new version, still a strike, same post
    rate(second, alice, "false")
    standing = AuthorStanding.objects.get(author_external_id="author-x")
    assert (standing.strikes, standing.multiplier) == (2, 1.0)


@pytest.mark.django_db
def test_it_takes_a_strike_back_when_the_rating_is_revised(rate, alice, anna):
    posts = _author_posts(3)
    for post in posts:
        rate(post, alice, "false")
    assert lookup(posts[2])[posts[2].external_id] == (0.1, "false", False)
    rate(posts[0], anna, "missing_context")  # a correction: no longer false
    standing = AuthorStanding.objects.get(author_external_id="author-x")
    assert (standing.strikes, standing.multiplier) == (2, 1.0)
    assert lookup(*posts) == {
        posts[0].external_id: (1.0, "missing_context", False),
        posts[1].external_id: (0.2, "false", False),
        posts[2].external_id: (0.2, "false", False),
    }


@pytest.mark.django_db
def test_it_never_bans_an_author_however_many_strikes(rate, alice):
    posts = _author_posts(12)
    for post in posts:
        rate(post, alice, "false")
    standing = AuthorStanding.objects.get(author_external_id="author-x")
    assert (standing.strikes, standing.multiplier) == (12, 0.5)
    demotions = lookup(*posts)
    assert set(demotions.values()) == {(0.1, "false", False)}
    assert not Post.objects.filter(status=Post.Status.REMOVED).exists()


def _backdated_false(post, partner, days_ago):
    rating = RatingFactory(post=post, partner=partner, verdict="false")
    Rating.objects.filter(pk=rating.pk).update(created_at=timezone.now() - timedelta(days=days_ago))
    services.demotion_apply(post_id=post.pk)


@pytest.mark.django_db
def test_it_ages_strikes_out_after_90_days(rate, alice, partner_a):
    old, older_than_window, recent, new, unrated = _author_posts(5)
    _backdated_false(older_than_window, partner_a, days_ago=100)  # outside the window
    _backdated_false(old, partner_a, days_ago=50)
    _backdated_false(recent, partner_a, days_ago=10)
    standing = AuthorStanding.objects.get(author_external_id="author-x")
    assert (standing.strikes, standing.multiplier) == (2, 1.0)

    rate(new, alice, "false")
    standing.refresh_from_db()
    assert (standing.strikes, standing.multiplier) == (3, 0.5)
    # Lifted when the 50-day-old strike reaches 90 days.
    expected_until = Rating.objects.get(post=old).created_at + timedelta(days=90)
    assert standing.penalty_until == expected_until
    assert standing.recheck_at == expected_until
    assert lookup(unrated) == {unrated.external_id: (0.5, "", False)}

    assert services.author_standings_refresh(now=expected_until - timedelta(hours=1)) == 0
    assert services.author_standings_refresh(now=expected_until + timedelta(hours=1)) == 1
    standing.refresh_from_db()
    assert (standing.strikes, standing.multiplier, standing.penalty_until) == (2, 1.0, None)
    assert lookup(old, older_than_window, recent, new, unrated) == {
        old.external_id: (0.2, "false", False),
        older_than_window.external_id: (0.2, "false", False),
        recent.external_id: (0.2, "false", False),
        new.external_id: (0.2, "false", False),
    }
    # The ranker learns the unrated post is back to normal.
    assert changes(unrated) == [(0.5, "", False), (1.0, "", False)]


@pytest.mark.django_db
def test_it_demotes_a_new_post_of_a_penalised_author_on_ingest(rate, alice):
    for post in _author_posts(3):
        rate(post, alice, "false")
    newcomer = PostFactory(author_external_id="author-x")
    assert lookup(newcomer) == {}
    assert services.demotion_apply_new_posts(post_ids=[newcomer.pk]) == 1
    assert lookup(newcomer) == {newcomer.external_id: (0.5, "", False)}
    assert services.demotion_apply_new_posts(post_ids=[newcomer.pk]) == 0


@pytest.mark.django_db
def test_it_keeps_the_original_strike_date_when_a_partner_reissues_false(
    rate, alice, anna, partner_a
):
    post = _author_posts(1)[0]
    _backdated_false(post, partner_a, days_ago=80)
    rate(post, anna, "false", headline="Same finding, better headline")
    demotion = Demotion.objects.get(post=post)
    assert demotion.strike_at == Rating.objects.get(post=post, version=1).created_at


@pytest.mark.django_db
def test_it_demotes_a_post_ingested_while_its_author_is_penalised(
    rate, alice, client, django_capture_on_commit_callbacks
):
    for post in _author_posts(3):
        rate(post, alice, "false")
    newcomer = item("fresh-1", author={"id": "author-x", "name": "X"})
    unrelated = item("fresh-2")
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/api/v1/posts/ingest",
            {"posts": [newcomer, unrelated]},
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Bearer {make_token('ingest')}",
        )
    assert response.status_code == 200, response.content
    rows = selectors.demotions_lookup(external_ids=["fresh-1", "fresh-2"])
    assert rows == [("fresh-1", 0.5, "", False)]
