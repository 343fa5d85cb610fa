"""Ingestion: the platform's batches of trending posts become Post rows and engagement
snapshots, atomically and idempotently, in a fixed number of statements per batch."""

import logging
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from factcheck.core.services import audit_record
from factcheck.posts import trending
from factcheck.posts.fingerprints import text_fingerprint
from factcheck.posts.models import EngagementSnapshot, Post
from factcheck.posts.selectors import (
    CONTENT_FIELDS,
    SnapshotPoint,
    StoredPost,
    posts_ingest_state,
    snapshot_points,
)
from factcheck.posts.signals import posts_ingested
from factcheck.posts.validation import COUNT_FIELDS, ItemError, PostItem, validate_items

logger = logging.getLogger(__name__)

INGEST_MAX_POSTS = 1000
INGEST_MAX_BYTES = 10 * 1024 * 1024  # DESIGN §8


class IngestTooLarge(Exception):
    pass


class IngestRejected(Exception):
    """The batch had invalid items; nothing was written. ``errors`` lists every one."""

    def __init__(self, errors: list[ItemError]):
        self.errors = errors
        posts = len({error.index for error in errors})
        super().__init__(
            f"{len(errors)} error{'s' if len(errors) != 1 else ''} in {posts} "
            f"post{'s' if posts != 1 else ''}; nothing was written."
        )


@dataclass
class IngestResult:
    """Counts are of distinct post ids: an id sent twice in a batch (two snapshots) counts
    once. ``post_ids`` are the pks of created and updated posts."""

    created: int = 0
    updated: int = 0
    unchanged: int = 0
    snapshots: int = 0
    post_ids: list[int] = field(default_factory=list)
    text_changed_ids: list[int] = field(default_factory=list)


@dataclass(slots=True)
class _Write:
    """What one post's items in the batch amount to."""

    external_id: str
    stored: StoredPost | None
    content: tuple  # CONTENT_FIELDS values to store
    text_changed: bool
    observed_at: datetime
    counts: tuple[int, ...]
    trending_score: float
    new_points: list[SnapshotPoint]


def clock_skew() -> timedelta:
    return timedelta(seconds=getattr(settings, "FACTCHECK_CLOCK_SKEW_SECONDS", 300))


def posts_ingest(*, posts: list, actor) -> IngestResult:
    """Upsert a batch of posts in the API's item shape (``{"id", "author", "text", …,
    "metrics"}``), each with one engagement snapshot. All or nothing: raises ``IngestRejected``
    listing every error, or ``IngestTooLarge`` above ``INGEST_MAX_POSTS``. A new post is
    queued; an existing post keeps its status. Sends ``posts_ingested`` on commit."""
    if len(posts) > INGEST_MAX_POSTS:
        raise IngestTooLarge(
            f"A batch holds at most {INGEST_MAX_POSTS:,} posts; this one has {len(posts):,}."
        )
    now = timezone.now()
    items, errors = validate_items(posts, now=now, clock_skew=clock_skew())
    by_id: dict[str, list[PostItem]] = {}
    for item in items:
        by_id.setdefault(item.external_id, []).append(item)

    with transaction.atomic():
        stored = posts_ingest_state(external_ids=list(by_id), lock=True)
        # The latest stored snapshot is on the post; the whole history is read only for posts
        # where an item lands at or before it (late deliveries, re-sent edits).
        needs_history = [
            post.pk
            for external_id, post in stored.items()
            if _needs_history(by_id[external_id], post)
        ]
        history = snapshot_points(post_ids=needs_history) if needs_history else {}
        writes = []
        result = IngestResult()
        for external_id, group in by_id.items():
            post = stored.get(external_id)
            write = _plan(group, post, history.get(post.pk) if post else None, errors)
            if write is None:
                continue
            if post is not None and not write.new_points and write.content == post.content:
                result.unchanged += 1
            else:
                writes.append(write)
        if errors:
            errors.sort(key=lambda error: error.index)
            raise IngestRejected(errors)
        if not writes:
            return result

        pks = _upsert_posts(writes, now=now)
        snapshots = [
            (pks[write.external_id], observed_at, counts)
            for write in writes
            for observed_at, counts in write.new_points
        ]
        if snapshots:
            _insert_snapshots(snapshots)
        for write in writes:
            pk = pks[write.external_id]
            result.post_ids.append(pk)
            if write.text_changed:
                result.text_changed_ids.append(pk)
            if write.stored is None:
                result.created += 1
            else:
                result.updated += 1
        result.snapshots = len(snapshots)
        audit_record(
            actor=actor,
            action="posts.ingest",
            object_type=Post._meta.label_lower,
            object_repr=f"batch of {len(by_id)} posts",
            after={
                "created": result.created,
                "updated": result.updated,
                "unchanged": result.unchanged,
                "snapshots": result.snapshots,
            },
        )
        post_ids, text_changed_ids = list(result.post_ids), list(result.text_changed_ids)
        transaction.on_commit(lambda: _send_posts_ingested(post_ids, text_changed_ids))
    logger.info(
        "ingested posts: %d created, %d updated, %d unchanged, %d snapshots",
        result.created,
        result.updated,
        result.unchanged,
        result.snapshots,
    )
    return result


def _send_posts_ingested(post_ids: list[int], text_changed_ids: list[int]) -> None:
    # The posts are committed and the client gets its 200 either way; a failing receiver is
    # logged rather than turned into an error that would make the platform resend a batch
    # which then counts as unchanged.
    responses = posts_ingested.send_robust(
        sender=Post, post_ids=post_ids, text_changed_ids=text_changed_ids
    )
    for receiver, response in responses:
        if isinstance(response, Exception):
            logger.error(
                "posts_ingested receiver %s failed",
                getattr(receiver, "__qualname__", receiver),
                exc_info=response,
            )


def _content_of(item: PostItem) -> tuple:
    return (
        item.author_external_id,
        item.author_name,
        item.url,
        item.text,
        item.language,
        item.language_tag,
        item.country,
        item.published_at,
    )


def _needs_history(items: list[PostItem], post: StoredPost) -> bool:
    if post.observed_at is None:
        return False
    earliest = min(item.observed_at for item in items)
    if earliest < post.observed_at:
        return True
    newest = max(items, key=lambda item: (item.observed_at, item.index))
    # Content re-sent with the latest snapshot: the score needs the snapshot before it.
    return newest.observed_at == post.observed_at and _content_of(newest) != post.content


def _plan(
    items: list[PostItem],
    post: StoredPost | None,
    history: list[SnapshotPoint] | None,
    errors: list[ItemError],
) -> _Write | None:
    """Merge the batch's items for one post with what is stored, appending an error for every
    count that goes backwards in time and every conflicting duplicate observation."""
    if post is None and len(items) == 1:
        # The common case, a new post with one snapshot: nothing to merge or compare.
        item = items[0]
        return _Write(
            external_id=item.external_id,
            stored=None,
            content=_content_of(item),
            text_changed=True,
            observed_at=item.observed_at,
            counts=item.counts,
            trending_score=trending.trending_score(
                published_at=item.published_at,
                latest=(item.observed_at, item.counts[0], item.counts[1]),
            ),
            new_points=[(item.observed_at, item.counts)],
        )
    stored_points: list[SnapshotPoint] = list(history or [])
    if (
        post is not None
        and post.observed_at is not None
        and not any(observed_at == post.observed_at for observed_at, _ in stored_points)
    ):
        stored_points.append((post.observed_at, post.counts))
    # (observed_at, counts, item index or None when stored); stored before items at a tie.
    points = [(observed_at, counts, None) for observed_at, counts in stored_points]
    points += [(item.observed_at, item.counts, item.index) for item in items]
    points.sort(key=lambda point: (point[0], point[2] is not None, point[2] or 0))

    timeline: list[tuple[datetime, tuple[int, ...], int | None]] = []
    new_points: list[SnapshotPoint] = []
    errors_before = len(errors)
    for observed_at, counts, index in points:
        if timeline and timeline[-1][0] == observed_at:
            previous_index = timeline[-1][2]
            if counts != timeline[-1][1]:
                errors.append(
                    ItemError(
                        index,
                        "metrics.observed_at",
                        "A snapshot of this post at this observed_at is already stored with "
                        "different counts."
                        if previous_index is None
                        else f"posts[{previous_index}] has the same id and observed_at with "
                        "different counts.",
                    )
                )
            continue
        if timeline:
            before_at, before_counts, before_index = timeline[-1]
            for name, before, now in zip(COUNT_FIELDS, before_counts, counts, strict=True):
                if now >= before:
                    continue
                if index is not None:
                    errors.append(
                        ItemError(
                            index,
                            f"metrics.{name}",
                            f"Went backwards: {now} is less than the {before} observed at "
                            f"{before_at.isoformat()}"
                            + ("." if before_index is None else f" in posts[{before_index}]."),
                        )
                    )
                elif before_index is not None:
                    errors.append(
                        ItemError(
                            before_index,
                            f"metrics.{name}",
                            f"Went backwards: {before} is more than the {now} already stored "
                            f"for the later {observed_at.isoformat()}.",
                        )
                    )
        timeline.append((observed_at, counts, index))
        if index is not None:
            new_points.append((observed_at, counts))
    if len(errors) > errors_before:
        return None

    newest = max(items, key=lambda item: (item.observed_at, item.index))
    applies = post is None or post.observed_at is None or newest.observed_at >= post.observed_at
    content = _content_of(newest) if applies else post.content
    published_at = content[7]
    latest_at, latest_counts, _ = timeline[-1]
    previous = timeline[-2] if len(timeline) > 1 else None
    score = trending.trending_score(
        published_at=published_at,
        latest=(latest_at, latest_counts[0], latest_counts[1]),
        previous=(previous[0], previous[1][0], previous[1][1]) if previous else None,
    )
    return _Write(
        external_id=newest.external_id,
        stored=post,
        content=content,
        text_changed=post is None or content[3] != post.text,
        observed_at=latest_at,
        counts=latest_counts,
        trending_score=score,
        new_points=new_points,
    )


# --- bulk statements ----------------------------------------------------------------------
# Hand-written INSERT … ON CONFLICT … RETURNING, one statement per batch, where bulk_create
# would split a batch into dozens of statements on SQLite (Django assumes 999 parameters
# there). On PostgreSQL the rows first go by binary COPY into a temporary staging table: a
# statement with tens of thousands of placeholders, or one array per column, costs several
# times more to encode and parse than the rows cost to write (measured by the benchmark).

_POST_UPSERT_FIELDS = (
    "external_id",
    *CONTENT_FIELDS,
    "text_fingerprint",
    "trending_score",
    "observed_at",
    *COUNT_FIELDS,
    "updated_at",
)
# Written on insert, never on update: a rated post stays rated.
_POST_INSERT_ONLY_FIELDS = ("status", "created_at")
_SNAPSHOT_FIELDS = ("post", "observed_at", *COUNT_FIELDS)
# Staging column types by Django field type; each casts to the real column on INSERT.
_STAGE_TYPES = {
    "CharField": "text",
    "TextField": "text",
    "URLField": "text",
    "DateTimeField": "timestamptz",
    "FloatField": "float8",
    "BigIntegerField": "int8",
    "ForeignKey": "int8",
}


def _other_fields(model, named: tuple[str, ...]) -> tuple[list, list]:
    """Fields of ``model`` that ingest does not set (added by other apps) and their defaults,
    so the hand-written INSERT stays valid as models grow."""
    fields, defaults = [], []
    for model_field in model._meta.concrete_fields:
        if model_field.primary_key or model_field.name in named:
            continue
        fields.append(model_field)
        defaults.append(model_field.get_db_prep_save(model_field.get_default(), connection))
    return fields, defaults


def _insert(
    model,
    fields: tuple[str, ...],
    rows: list[tuple],
    *,
    conflict: str,
    returning: str = "",
) -> list[tuple]:
    """INSERT ``rows`` (values of ``fields``) in their order, with an ON CONFLICT ``conflict``
    clause; the RETURNING rows if ``returning``."""
    quote = connection.ops.quote_name
    named = [model._meta.get_field(name) for name in fields]
    others, defaults = _other_fields(model, fields)
    columns = [quote(model_field.column) for model_field in named]
    head = (
        f"INSERT INTO {quote(model._meta.db_table)} "
        f"({', '.join(columns + [quote(other.column) for other in others])}) "
    )
    tail = f" {conflict}{returning}"
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            stage = quote(f"ingest_stage_{model._meta.db_table}")
            types = [_STAGE_TYPES[model_field.get_internal_type()] for model_field in named]
            # One per session, emptied at each commit; the DELETE clears what an earlier ingest
            # in the same still open transaction left (and costs nothing on an empty table).
            definition = ", ".join(
                f"{column} {kind}" for column, kind in zip(columns, types, strict=True)
            )
            cursor.execute(
                f"CREATE TEMPORARY TABLE IF NOT EXISTS {stage} ({definition}) "
                f"ON COMMIT DELETE ROWS; DELETE FROM {stage}"
            )
            # COPY is psycopg's own API, below Django's cursor wrapper.
            with cursor.cursor.copy(
                f"COPY {stage} ({', '.join(columns)}) FROM STDIN (FORMAT BINARY)"
            ) as copy:
                copy.set_types(types)
                for row in rows:
                    copy.write_row(row)
            values = columns + [f"%s::{other.db_type(connection)}" for other in others]
            cursor.execute(
                # The session-private heap scans in the order it was filled: the rows' order.
                f"{head}SELECT {', '.join(values)} FROM {stage}{tail}",
                defaults,
            )
            return cursor.fetchall() if returning else []

        if defaults:
            rows = [row + tuple(defaults) for row in rows]
        connection.ensure_connection()
        max_params = connection.connection.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
        per_statement = max(1, max_params // (len(named) + len(others)))
        placeholder = "(" + ", ".join(["%s"] * (len(named) + len(others))) + ")"
        returned = []
        for start in range(0, len(rows), per_statement):
            chunk = rows[start : start + per_statement]
            cursor.execute(
                f"{head}VALUES {', '.join([placeholder] * len(chunk))}{tail}",
                [value for row in chunk for value in row],
            )
            if returning:
                returned.extend(cursor.fetchall())
        return returned


def _upsert_posts(writes: list[_Write], *, now: datetime) -> dict[str, int]:
    """Upsert the posts, returning their pks by external id."""
    adapt = connection.ops.adapt_datetimefield_value
    now_value = adapt(now)
    queued = Post.Status.QUEUED.value
    rows = []
    # In external id order, like the lock in posts_ingest_state: two batches inserting the
    # same new ids in different orders could otherwise deadlock on the unique index.
    for write in sorted(writes, key=lambda write: write.external_id):
        content = write.content
        fingerprint = (
            text_fingerprint(content[3]) if write.text_changed else write.stored.text_fingerprint
        )
        rows.append(
            (
                write.external_id,
                *content[:7],
                adapt(content[7]),
                fingerprint,
                write.trending_score,
                adapt(write.observed_at),
                *write.counts,
                now_value,
                queued,
                now_value,
            )
        )
    quote = connection.ops.quote_name
    fields = _POST_UPSERT_FIELDS + _POST_INSERT_ONLY_FIELDS
    updates = ", ".join(
        f"{quote(column)} = EXCLUDED.{quote(column)}"
        for column in (Post._meta.get_field(name).column for name in _POST_UPSERT_FIELDS[1:])
    )
    table, observed_at = quote(Post._meta.db_table), quote("observed_at")
    returned = _insert(
        Post,
        fields,
        rows,
        # The rows of existing posts are locked and already compared; this guards a new post
        # that a concurrent batch created first: an older observation must not overwrite it.
        conflict=f"ON CONFLICT ({quote('external_id')}) DO UPDATE SET {updates} "
        f"WHERE {table}.{observed_at} IS NULL OR EXCLUDED.{observed_at} >= {table}.{observed_at}",
        returning=f" RETURNING {quote('id')}, {quote('external_id')}",
    )
    pks = {external_id: pk for pk, external_id in returned}
    if len(pks) < len(rows):
        # Only after losing that race: the posts exist, the snapshots still go in.
        missing = [write.external_id for write in writes if write.external_id not in pks]
        pks.update(Post.objects.filter(external_id__in=missing).values_list("external_id", "pk"))
    return pks


def _insert_snapshots(snapshots: list[tuple[int, datetime, tuple[int, ...]]]) -> None:
    """Insert snapshots; one already stored for the post and time is left as it is."""
    adapt = connection.ops.adapt_datetimefield_value
    quote = connection.ops.quote_name
    rows = [(post_id, adapt(observed_at), *counts) for post_id, observed_at, counts in snapshots]
    _insert(
        EngagementSnapshot,
        _SNAPSHOT_FIELDS,
        rows,
        conflict=f"ON CONFLICT ({quote('post_id')}, {quote('observed_at')}) DO NOTHING",
    )
