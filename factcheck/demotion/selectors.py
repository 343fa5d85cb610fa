import json
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection
from django.db.models import Exists, F, OuterRef, Q
from django.utils import timezone

from factcheck.demotion.models import (
    NON_PROPAGATING_FINGERPRINTS,
    AuthorStanding,
    Demotion,
    DemotionChange,
    DemotionPolicy,
)
from factcheck.posts.models import Post
from factcheck.ratings.models import Rating

LOOKUP_MAX_IDS = 10_000
CHANGES_DEFAULT_LIMIT = 1_000
CHANGES_MAX_LIMIT = 10_000


def reconcile_after() -> timedelta:
    return timedelta(seconds=getattr(settings, "FACTCHECK_RECONCILE_AFTER_SECONDS", 30))


def demotion_state(*, post: Post) -> dict | None:
    """The post's demotion for the review page: "pending" while a rating of it awaits the
    demotion task, "applied" when the ranker is told something, "none" when its ratings leave
    it at full reach. None when the post has neither ratings nor a demotion."""
    demotion = Demotion.objects.filter(post=post).first()
    pending = (
        Rating.objects.filter(post=post, demotion_applied_at__isnull=True)
        .order_by("-created_at")
        .values_list("created_at", flat=True)
        .first()
    )
    if demotion is None and pending is None:
        return None
    if demotion is None:
        values = {"multiplier": 1.0, "label": "", "removed": False, "reasons": []}
        updated_at = pending
    else:
        values = {
            "multiplier": demotion.multiplier,
            "label": demotion.label,
            "removed": demotion.removed,
            "reasons": list(demotion.reasons),
        }
        updated_at = demotion.updated_at
    if pending is not None:
        state = "pending"
    elif demotion.is_listed:
        state = "applied"
    else:
        state = "none"
    return {"state": state, **values, "updated_at": updated_at}


def _lookup_sql() -> str:
    table = connection.ops.quote_name(Demotion._meta.db_table)
    listed = "(multiplier < 1 OR label <> '' OR removed)"
    if connection.vendor == "postgresql":
        return (
            f"SELECT external_id, multiplier, label, removed FROM {table} "
            f"WHERE external_id = ANY(%s) AND {listed}"
        )
    # SQLite: one bound JSON array instead of 10,000 parameters, still one indexed query.
    return (
        f"SELECT external_id, multiplier, label, removed FROM {table} "
        f"WHERE external_id IN (SELECT value FROM json_each(%s)) AND {listed}"
    )


def demotions_lookup(*, external_ids: list[str]) -> list[tuple[str, float, str, bool]]:
    """(external id, multiplier, label, removed) of those ids the ranker must demote, label or
    drop, in ONE query on the unique external_id index. Plain tuples: at 10,000 rows a model
    instance per row is most of the cost."""
    if not external_ids:
        return []
    on_postgres = connection.vendor == "postgresql"
    param = external_ids if on_postgres else json.dumps(external_ids)
    with connection.cursor() as cursor:
        cursor.execute(_lookup_sql(), [param])
        rows = cursor.fetchall()
    if not on_postgres:  # SQLite answers 0/1 for booleans
        rows = [(eid, multiplier, label, bool(removed)) for eid, multiplier, label, removed in rows]
    return rows


ChangeRow = tuple[int, str, float, str, bool, datetime]


def demotion_changes(*, after: int, limit: int) -> list[ChangeRow]:
    """Changes with seq > after, in sequence order: (seq, external id, multiplier, label,
    removed, at)."""
    return list(
        DemotionChange.objects.filter(seq__gt=after)
        .order_by("seq")
        .values_list("seq", "external_id", "multiplier", "label", "removed", "at")[:limit]
    )


def posts_needing_demotion(*, now: datetime | None = None, limit: int = 5_000) -> list[int]:
    """What the reconciler re-enqueues: posts with a rating the demotion task has not applied
    for a while (a lost message, a killed worker, a broker outage), posts of a penalised
    author that have no row yet (posts ingested after the penalty began), and exact copies of
    a rated post that have not inherited its verdict (ingested while the broker was down)."""
    now = now or timezone.now()
    stale = (
        Rating.objects.filter(
            demotion_applied_at__isnull=True, created_at__lt=now - reconcile_after()
        )
        .order_by("created_at")
        .values_list("post_id", flat=True)[:limit]
    )
    post_ids = list(dict.fromkeys(stale))
    penalised = AuthorStanding.objects.filter(multiplier__lt=1).values("author_external_id")
    unlisted = (
        Post.objects.filter(author_external_id__in=penalised, demotion__isnull=True)
        .exclude(pk__in=post_ids)
        .values_list("pk", flat=True)[: max(0, limit - len(post_ids))]
    )
    post_ids += unlisted
    return post_ids + copies_missing_verdict(limit=max(0, limit - len(post_ids)), skip=post_ids)


def copies_missing_verdict(*, limit: int = 5_000, skip: list[int] = ()) -> list[int]:
    """Unrated posts sharing a propagating text fingerprint with a rated post, without the
    verdict row they should inherit. Driven from the rated posts' fingerprints (through the
    fingerprint index), so its cost follows the number of rated posts, not of all posts."""
    if limit <= 0:
        return []
    rated_fingerprints = Rating.objects.exclude(
        post__text_fingerprint__in=NON_PROPAGATING_FINGERPRINTS
    ).values("post__text_fingerprint")
    return list(
        Post.objects.filter(text_fingerprint__in=rated_fingerprints)
        .exclude(Exists(Rating.objects.filter(post_id=OuterRef("pk"))))
        .exclude(Exists(Demotion.objects.filter(post_id=OuterRef("pk")).exclude(verdict="")))
        .exclude(pk__in=skip)
        .order_by("pk")
        .values_list("pk", flat=True)[:limit]
    )


def posts_with_copies_due(*, now: datetime | None = None, limit: int = 1_000) -> list[int]:
    """Posts whose verdict changed and whose copies have not been re-queued for a while."""
    now = now or timezone.now()
    return list(
        Demotion.objects.filter(copies_due_at__lt=now - reconcile_after())
        .order_by("copies_due_at")
        .values_list("post_id", flat=True)[:limit]
    )


def policies_to_propagate() -> list[str]:
    """Verdicts whose policy changed after its posts were last re-queued."""
    return list(
        DemotionPolicy.objects.filter(
            Q(propagated_at__isnull=True) | Q(propagated_at__lt=F("updated_at"))
        ).values_list("verdict", flat=True)
    )


def author_standing(*, author_external_id: str) -> AuthorStanding | None:
    return AuthorStanding.objects.filter(author_external_id=author_external_id).first()
