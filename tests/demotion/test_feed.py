"""The change-feed property: a ranker replaying every change from 0 (in pages) holds exactly
what the lookup answers for every post, whatever sequence of ratings, revisions, removals,
restorations and strikes ageing out produced the table."""

from datetime import timedelta

import pytest
from django.db import transaction
from django.db.models import F
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from factcheck.demotion import services
from factcheck.demotion.models import AuthorStanding, Demotion, DemotionChange
from factcheck.posts.models import Post
from factcheck.ratings.models import Rating, Verdict
from factcheck.ratings.services import rating_create
from tests.factories import MembershipFactory, PartnerFactory, PostFactory, UserFactory

POSTS = 6  # over two authors, so three strikes can come about
PARTNERS = 3

operations = st.one_of(
    st.tuples(
        st.just("rate"),
        st.integers(0, POSTS - 1),
        st.integers(0, PARTNERS - 1),
        st.sampled_from(Verdict.values),
    ),
    st.tuples(st.just("remove"), st.integers(0, POSTS - 1)),
    st.tuples(st.just("restore"), st.integers(0, POSTS - 1)),
    st.tuples(st.just("age")),
)


class _Rollback(Exception):
    pass


@pytest.fixture
def world(db):
    checkers = []
    for n in range(PARTNERS):
        partner = PartnerFactory(name=f"Partner {n}", slug=f"feed-partner-{n}")
        checkers.append(MembershipFactory(partner=partner, user=UserFactory()).user)
    posts = [
        PostFactory(external_id=f"feed-{n}", author_external_id=f"author-{n % 2}")
        for n in range(POSTS)
    ]
    return checkers, posts


def _apply(op, checkers, posts):
    kind = op[0]
    if kind == "rate":
        _, post_index, checker_index, verdict = op
        checker = checkers[checker_index]
        post = posts[post_index]
        rating_create(
            post=post,
            partner=checker.memberships.get().partner,
            checker=checker,
            verdict=verdict,
            headline="h",
            article_url="https://factcheck.example/a",
        )
        services.demotion_apply(post_id=post.pk)
    elif kind == "remove":
        post = posts[op[1]]
        Post.objects.filter(pk=post.pk).update(status=Post.Status.REMOVED)
        services.demotion_apply(post_id=post.pk)
    elif kind == "restore":
        post = posts[op[1]]
        Post.objects.filter(pk=post.pk, status=Post.Status.REMOVED).update(status=Post.Status.RATED)
        services.demotion_apply(post_id=post.pk)
    else:  # 91 days pass: every strike so far ages out
        shift = timedelta(days=91)
        Rating.objects.update(created_at=F("created_at") - shift)
        Demotion.objects.exclude(strike_at=None).update(strike_at=F("strike_at") - shift)
        AuthorStanding.objects.exclude(recheck_at=None).update(recheck_at=F("recheck_at") - shift)
        services.author_standings_refresh()


def _replay(client) -> dict:
    cache, after, seqs = {}, 0, []
    while True:
        page = client.get("/api/v1/demotions/changes", {"after": after, "limit": 3}).json()
        for change in page["changes"]:
            seqs.append(change["seq"])
            values = {key: change[key] for key in ("multiplier", "label", "removed")}
            if values == {"multiplier": 1.0, "label": "", "removed": False}:
                cache.pop(change["post_id"], None)
            else:
                cache[change["post_id"]] = values
        if not page["changes"]:
            assert page["next"] == after
            break
        after = page["next"]
    assert seqs == sorted(set(seqs)), "sequence numbers must strictly increase"
    return cache


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=st.lists(operations, min_size=1, max_size=20))
def test_it_rebuilds_the_lookup_by_replaying_the_changes(ops, world, ranker):
    checkers, posts = world
    try:
        with transaction.atomic():
            for op in ops:
                _apply(op, checkers, posts)
            replayed = _replay(ranker)
            ids = [post.external_id for post in posts]
            looked_up = ranker.post(
                "/api/v1/demotions/lookup", {"post_ids": ids}, content_type="application/json"
            ).json()["demotions"]
            assert replayed == looked_up

            # No change row repeats the values before it: changes only when values change.
            last = {}
            for change in DemotionChange.objects.order_by("seq"):
                values = (change.multiplier, change.label, change.removed)
                assert last.get(change.external_id, (1.0, "", False)) != values
                last[change.external_id] = values

            # The table is a fixed point: recomputing every post changes nothing.
            before = DemotionChange.objects.count()
            for post in posts:
                services.demotion_apply(post_id=post.pk)
            assert DemotionChange.objects.count() == before
            raise _Rollback
    except _Rollback:
        pass
