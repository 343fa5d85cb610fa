from datetime import timedelta

import pytest
from django.utils import timezone

from factcheck.posts.selectors import post_snapshots, posts_ingest_state
from tests.factories import PostFactory, SnapshotFactory


@pytest.mark.django_db
def test_it_lists_a_posts_latest_snapshots_oldest_first():
    post = PostFactory()
    now = timezone.now()
    for hours in (5, 1, 3, 2, 4):
        SnapshotFactory(post=post, observed_at=now - timedelta(hours=hours), shares=100 - hours)
    SnapshotFactory(observed_at=now)  # another post's

    snapshots = post_snapshots(post=post, limit=3)

    assert [snapshot.shares for snapshot in snapshots] == [97, 98, 99]


@pytest.mark.django_db
def test_it_reads_the_stored_state_of_posts_by_external_id(django_assert_num_queries):
    PostFactory(external_id="a", shares=5, views=50, text="Hello")
    PostFactory(external_id="b")

    with django_assert_num_queries(1):
        state = posts_ingest_state(external_ids=["a", "missing"])

    assert list(state) == ["a"]
    assert state["a"].counts[:2] == (5, 50)
    assert state["a"].text == "Hello"
    assert posts_ingest_state(external_ids=[]) == {}
