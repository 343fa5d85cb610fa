import pytest
from django.db.models import Count, Max, Min

from factcheck.ops.demo_data import seed_posts
from factcheck.posts.models import EngagementSnapshot, Post


@pytest.mark.django_db
def test_it_seeds_demo_posts_with_histories_and_twice_adds_nothing():
    messages = []
    summary = seed_posts(progress=messages.append)

    assert summary.startswith("360 demo posts in en, es, fr (360 new)")
    assert messages  # progress was shown
    languages = dict(Post.objects.values_list("language").annotate(n=Count("id")))
    assert languages == {"en": 120, "es": 120, "fr": 120}
    per_post = Post.objects.annotate(n=Count("snapshots")).aggregate(low=Min("n"), high=Max("n"))
    assert per_post["low"] >= 3 and per_post["high"] <= 8
    assert Post.objects.filter(status=Post.Status.QUEUED).count() == 360
    assert Post.objects.filter(text__contains="<script>").exists()
    assert Post.objects.filter(text__contains="vermin").exists()
    # Copies of one text, for ratings to propagate to.
    copies = Post.objects.values("text_fingerprint").annotate(n=Count("id")).filter(n__gt=1)
    assert copies.exists()
    # Scores differ, so the queue has an order.
    assert Post.objects.values("trending_score").distinct().count() > 300
    posts, snapshots = Post.objects.count(), EngagementSnapshot.objects.count()

    again = seed_posts(progress=messages.append)

    assert "(0 new)" in again
    assert (Post.objects.count(), EngagementSnapshot.objects.count()) == (posts, snapshots)
