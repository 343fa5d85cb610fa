from datetime import UTC, datetime, timedelta

import pytest

from factcheck.posts import trending
from factcheck.posts.models import Post
from tests.posts.builders import item

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
HOUR = timedelta(hours=1)


def test_it_measures_velocity_between_the_latest_two_snapshots():
    velocity = trending.velocity(
        published_at=T0 - 10 * HOUR,
        latest=(T0, 30, 5000),
        previous=(T0 - 2 * HOUR, 10, 1000),
    )
    # (20 shares * 25 + 4000 views) over two hours
    assert velocity == pytest.approx(2250.0)


def test_it_measures_velocity_since_publication_with_one_snapshot():
    velocity = trending.velocity(published_at=T0 - 4 * HOUR, latest=(T0, 4, 900))
    assert velocity == pytest.approx((4 * 25 + 900) / 4)


def test_it_does_not_let_snapshots_seconds_apart_explode_the_velocity():
    velocity = trending.velocity(
        published_at=T0 - HOUR,
        latest=(T0, 0, 1100),
        previous=(T0 - timedelta(seconds=1), 0, 1000),
    )
    assert velocity == pytest.approx(100 / (5 / 60))


def test_it_ranks_a_faster_growing_post_higher():
    slow = trending.trending_score(
        published_at=T0 - 3 * HOUR, latest=(T0, 10, 2000), previous=(T0 - HOUR, 9, 1900)
    )
    fast = trending.trending_score(
        published_at=T0 - 3 * HOUR, latest=(T0, 10, 2000), previous=(T0 - HOUR, 5, 500)
    )
    assert fast > slow


def test_it_decays_an_older_post_by_one_point_per_half_life():
    fresh = trending.score(velocity=1000.0, published_at=T0)
    older = trending.score(velocity=1000.0, published_at=T0 - 24 * HOUR)
    assert older < fresh
    assert fresh - older == pytest.approx(24 / trending.HALF_LIFE_HOURS)
    # Twice the velocity makes up one half-life of age.
    assert trending.score(velocity=2001.0, published_at=T0 - 12 * HOUR) == pytest.approx(fresh)


def test_it_keeps_the_order_of_decayed_heat_at_any_read_time():
    posts = [
        (900.0, T0 - 30 * HOUR),
        (50.0, T0 - 2 * HOUR),
        (300.0, T0 - 10 * HOUR),
        (5.0, T0),
    ]
    scores = [trending.score(velocity=v, published_at=p) for v, p in posts]
    for read_at in (T0, T0 + 5 * HOUR, T0 + 72 * HOUR):
        heats = [trending.heat_at(trending_score=s, at=read_at) for s in scores]
        assert sorted(range(4), key=heats.__getitem__) == sorted(range(4), key=scores.__getitem__)
    # The heat a score stands for halves every half-life.
    first = trending.heat_at(trending_score=scores[1], at=T0)
    later = trending.heat_at(trending_score=scores[1], at=T0 + 12 * HOUR)
    assert later == pytest.approx(first / 2)
    # At publication it is 1 + the velocity.
    assert trending.heat_at(trending_score=scores[3], at=T0) == pytest.approx(6.0)


@pytest.mark.django_db
def test_it_recomputes_the_score_on_ingest_so_the_faster_post_ranks_first(ingest):
    ingest(
        [
            item("steady", hours_ago=2, metrics={"shares": 10, "views": 1000}),
            item("viral", hours_ago=2, metrics={"shares": 10, "views": 1000}),
        ]
    )
    ingest(
        [
            item("steady", hours_ago=1, metrics={"shares": 11, "views": 1100}),
            item("viral", hours_ago=1, metrics={"shares": 400, "views": 90000}),
        ]
    )
    queue = list(
        Post.objects.filter(status="queued", language="en")
        .order_by("-trending_score")
        .values_list("external_id", flat=True)
    )
    assert queue == ["viral", "steady"]

    viral = Post.objects.get(external_id="viral")
    before = viral.trending_score
    # The platform pushes it again an hour later: it stalled, and drops.
    ingest([item("viral", hours_ago=0, metrics={"shares": 400, "views": 90000})])
    viral.refresh_from_db()
    assert viral.trending_score < before
    assert viral.trending_score == pytest.approx(
        trending.score(velocity=0.0, published_at=viral.published_at)
    )


@pytest.mark.django_db
def test_it_stores_the_same_score_the_module_computes(ingest):
    first = item("p-1", hours_ago=2, age_hours=5, metrics={"shares": 3, "views": 300})
    second = item("p-1", hours_ago=0.5, age_hours=5, metrics={"shares": 9, "views": 1200})
    ingest([first, second])
    post = Post.objects.get()
    expected = trending.trending_score(
        published_at=post.published_at,
        latest=(datetime.fromisoformat(second["metrics"]["observed_at"]), 9, 1200),
        previous=(datetime.fromisoformat(first["metrics"]["observed_at"]), 3, 300),
    )
    assert post.trending_score == pytest.approx(expected)
