"""Items of an ingest batch, in the API's shape."""

from datetime import timedelta

from django.utils import timezone


def iso(moment) -> str:
    return moment.isoformat()


# One reference time for the session, so the same call builds the same item and a batch can be
# sent twice; it only grows older, and past times stay valid.
NOW = timezone.now().replace(microsecond=0)


def item(external_id: str = "p-1", *, hours_ago: float = 1.0, age_hours: float = 3.0, **changes):
    """A valid post observed ``hours_ago`` and published ``age_hours`` before ``NOW``.
    ``changes`` replace top-level fields; ``metrics={…}`` is merged into the metrics."""
    now = NOW
    post = {
        "id": external_id,
        "author": {"id": f"author-{external_id}", "name": "Pat Poster"},
        "url": f"https://social.example/p/{external_id}",
        "text": f"Claim number {external_id}: the moon is made of cheese.",
        "language": "en",
        "country": "US",
        "published_at": iso(now - timedelta(hours=age_hours)),
        "metrics": {
            "observed_at": iso(now - timedelta(hours=hours_ago)),
            "shares": 10,
            "views": 100,
            "comments": 1,
            "reactions": 2,
            "reports_hate": 0,
            "reports_violence": 0,
        },
    }
    metrics = changes.pop("metrics", {})
    post.update(changes)
    # A metrics dict is merged; anything else (None, a list) replaces it, to test bad input.
    post["metrics"] = {**post["metrics"], **metrics} if isinstance(metrics, dict) else metrics
    return post
