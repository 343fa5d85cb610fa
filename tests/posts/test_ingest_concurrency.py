import threading

import pytest
from django.db import connection

from factcheck.posts.models import EngagementSnapshot, Post
from factcheck.posts.services import posts_ingest
from tests.posts.builders import item


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_it_ingests_overlapping_batches_at_once_without_losing_or_doubling_anything():
    # Eight platform workers push batches that share posts, in different orders, at once.
    batches = []
    for worker in range(8):
        ids = [f"p-{n}" for n in range(60)]
        if worker % 2:
            ids.reverse()
        batches.append(
            [item(i, hours_ago=1 - worker / 10, metrics={"shares": 10 + worker}) for i in ids]
        )
    failures = []
    start = threading.Barrier(len(batches))

    def push(batch):
        try:
            start.wait()
            posts_ingest(posts=batch, actor="system:test")
        except Exception as exc:  # reported below: any failure fails the test
            failures.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=push, args=(batch,)) for batch in batches]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert failures == []
    assert Post.objects.count() == 60
    # One snapshot per post and worker (each worker observed at its own time).
    assert EngagementSnapshot.objects.count() == 60 * 8
    # The latest observation wins, whatever order the batches committed in.
    assert set(Post.objects.values_list("shares", flat=True)) == {17}
