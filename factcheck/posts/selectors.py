from dataclasses import dataclass
from datetime import datetime

from django.db import connection
from django.db.models import BooleanField
from django.db.models.expressions import RawSQL

from factcheck.posts.models import EngagementSnapshot, Post
from factcheck.posts.validation import COUNT_FIELDS

# A snapshot as ingest compares them: (observed_at, counts in COUNT_FIELDS order).
SnapshotPoint = tuple[datetime, tuple[int, ...]]

CONTENT_FIELDS = (
    "author_external_id",
    "author_name",
    "url",
    "text",
    "language",
    "language_tag",
    "country",
    "published_at",
)


@dataclass(slots=True)
class StoredPost:
    pk: int
    external_id: str
    content: tuple  # values of CONTENT_FIELDS
    text_fingerprint: str
    trending_score: float
    observed_at: datetime | None  # of the latest snapshot
    counts: tuple[int, ...]  # of the latest snapshot

    @property
    def text(self) -> str:
        return self.content[3]

    @property
    def published_at(self) -> datetime:
        return self.content[7]


def posts_ingest_state(*, external_ids: list[str], lock: bool = False) -> dict[str, StoredPost]:
    """The stored state of these posts, by external id, in one query. With ``lock`` (inside a
    transaction) the rows stay locked until it ends, taken in external id order so two batches
    sharing posts queue instead of deadlocking."""
    if not external_ids:
        return {}
    if connection.vendor == "postgresql":
        # "= ANY(array)" probes the unique index once per id whatever the table's size (an IN
        # subquery was planned as a scan of the whole table), and one parameter is cheaper to
        # send than a thousand placeholders. Ids never hold a comma (validation.ID_PATTERN).
        quote = connection.ops.quote_name
        column = f"{quote(Post._meta.db_table)}.{quote('external_id')}"
        queryset = Post.objects.filter(
            RawSQL(
                f"{column} = ANY(string_to_array(%s, ','))",
                (",".join(external_ids),),
                output_field=BooleanField(),
            )
        )
    else:
        queryset = Post.objects.filter(external_id__in=external_ids)
    queryset = queryset.order_by("external_id")
    if lock:
        queryset = queryset.select_for_update()
    rows = queryset.values_list(
        "pk",
        "external_id",
        *CONTENT_FIELDS,
        "text_fingerprint",
        "trending_score",
        "observed_at",
        *COUNT_FIELDS,
    )
    content_end = 2 + len(CONTENT_FIELDS)
    return {
        row[1]: StoredPost(
            pk=row[0],
            external_id=row[1],
            content=row[2:content_end],
            text_fingerprint=row[content_end],
            trending_score=row[content_end + 1],
            observed_at=row[content_end + 2],
            counts=row[content_end + 3 :],
        )
        for row in rows
    }


def snapshot_points(*, post_ids: list[int]) -> dict[int, list[SnapshotPoint]]:
    """Every snapshot of these posts, oldest first, by post pk, in one query."""
    points: dict[int, list[SnapshotPoint]] = {pk: [] for pk in post_ids}
    rows = (
        EngagementSnapshot.objects.filter(post_id__in=post_ids)
        .order_by("post_id", "observed_at")
        .values_list("post_id", "observed_at", *COUNT_FIELDS)
    )
    for post_id, observed_at, *counts in rows:
        points[post_id].append((observed_at, tuple(counts)))
    return points


def post_snapshots(*, post: Post, limit: int = 200) -> list[EngagementSnapshot]:
    """A post's engagement history, oldest first (the latest ``limit`` snapshots)."""
    latest = list(post.snapshots.order_by("-observed_at")[:limit])
    latest.reverse()
    return latest
