"""Turning ratings into the ranker's demotion table (DESIGN §4, §5.4).

Every write for a post happens under its author's AuthorStanding row lock, because an author's
strikes change the combined multiplier of all their posts: two tasks for posts of one author
queue on that lock instead of deadlocking on each other's demotion rows. Lock order, always:
author standing -> demotion rows -> the sequence counter (last, see _sequence_take). Nothing
here locks a Post row, so a caller holding one (moderation removing a post) cannot deadlock
with a worker.

Exact copies (DESIGN §5.4): a post without ratings of its own inherits the most severe
effective verdict among the rated posts with the same text fingerprint. A copy is usually
another author's post, so a verdict change never touches copies in the source's transaction
(that would lock a second author's standing out of order); it marks the source's row
``copies_due_at`` and, on commit, enqueues ``demotion_apply_copies``, which re-applies each
copy in its author's own transaction.
"""

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Exists, Max, OuterRef, Q
from django.utils import timezone

from factcheck.core.services import audit_record, model_snapshot
from factcheck.demotion.models import (
    DEFAULT_POLICY,
    NON_PROPAGATING_FINGERPRINTS,
    AuthorStanding,
    Demotion,
    DemotionChange,
    DemotionPolicy,
    DemotionSequence,
)
from factcheck.posts.models import Post
from factcheck.ratings.models import VERDICT_SEVERITY, Rating, Verdict

logger = logging.getLogger(__name__)

NEUTRAL = (1.0, "", False)  # what the ranker assumes for a post it is not told about
POLICY_AUDIT_FIELDS = ["verdict", "multiplier", "show_label", "strike"]


def propagates(fingerprint: str) -> bool:
    return fingerprint not in NON_PROPAGATING_FINGERPRINTS


def strike_window() -> timedelta:
    return timedelta(days=getattr(settings, "FACTCHECK_STRIKE_WINDOW_DAYS", 90))


def strikes_for_penalty() -> int:
    return getattr(settings, "FACTCHECK_STRIKES_FOR_PENALTY", 3)


def author_penalty_multiplier() -> float:
    return getattr(settings, "FACTCHECK_AUTHOR_PENALTY_MULTIPLIER", 0.5)


def policy_table() -> dict[str, tuple[float, bool, bool]]:
    """verdict -> (multiplier, show_label, strike), the defaults filling any missing row."""
    rows = {
        verdict: (multiplier, show_label, strike)
        for verdict, multiplier, show_label, strike in DemotionPolicy.objects.values_list(
            "verdict", "multiplier", "show_label", "strike"
        )
    }
    return {verdict: rows.get(verdict, DEFAULT_POLICY[verdict]) for verdict in Verdict.values}


@dataclass
class _RatingRow:
    id: int
    partner_id: int
    partner_name: str
    version: int
    verdict: str
    created_at: datetime
    applied: bool


@dataclass(frozen=True)
class _Source:
    """A rated post an unrated exact copy inherits from."""

    post_id: int
    external_id: str
    verdict: str


@dataclass
class _PostState:
    id: int
    external_id: str
    author_external_id: str
    status: str
    text_fingerprint: str
    ratings: list[_RatingRow] = field(default_factory=list)
    existing: Demotion | None = None
    source: _Source | None = None

    def latest_by_partner(self) -> list[_RatingRow]:
        latest: dict[int, _RatingRow] = {}
        for rating in self.ratings:
            current = latest.get(rating.partner_id)
            if current is None or rating.version > current.version:
                latest[rating.partner_id] = rating
        return sorted(latest.values(), key=lambda r: (VERDICT_SEVERITY[r.verdict], r.partner_name))

    def strike_at(self, policies) -> datetime | None:
        """When the post became a strike: for each partner whose latest verdict strikes, the
        first version of its unbroken run of striking verdicts (so a partner re-issuing "false"
        with a better headline does not restart the clock); the earliest of those."""
        latest = self.latest_by_partner()
        if not latest or not policies[latest[0].verdict][2]:
            return None
        starts = []
        for head in latest:
            if not policies[head.verdict][2]:
                continue
            versions = sorted(
                (r for r in self.ratings if r.partner_id == head.partner_id),
                key=lambda r: r.version,
                reverse=True,
            )
            start = head.created_at
            for rating in versions:
                if not policies[rating.verdict][2]:
                    break
                start = rating.created_at
            starts.append(start)
        return min(starts)


def _load_posts(post_filter: Q) -> dict[int, _PostState]:
    states = {
        pk: _PostState(pk, external_id, author, status, fingerprint)
        for pk, external_id, author, status, fingerprint in Post.objects.filter(
            post_filter
        ).values_list("id", "external_id", "author_external_id", "status", "text_fingerprint")
    }
    if not states:
        return states
    # A long id list is a long statement; past a few hundred posts, a subquery reads better.
    ids = list(states) if len(states) < 500 else Post.objects.filter(post_filter).values("pk")
    for row in Rating.objects.filter(post_id__in=ids).values_list(
        "post_id",
        "id",
        "partner_id",
        "partner__name",
        "version",
        "verdict",
        "created_at",
        "demotion_applied_at",
    ):
        if (state := states.get(row[0])) is not None:  # not a post created since the read
            state.ratings.append(_RatingRow(*row[1:7], applied=row[7] is not None))
    for demotion in Demotion.objects.filter(post_id__in=ids).select_for_update(of=("self",)):
        if (state := states.get(demotion.post_id)) is not None:
            state.existing = demotion
    _sources_attach(states.values())
    return states


def _copy_sources(fingerprints: Iterable[str]) -> dict[str, list[_Source]]:
    """fingerprint -> its rated posts, most severe effective verdict first (then oldest post).
    Reads only other posts' committed ratings, never locks them."""
    latest: dict[tuple[int, int], tuple[int, str]] = {}
    posts: dict[int, tuple[str, str]] = {}
    wanted = sorted(set(fingerprints))
    for start in range(0, len(wanted), 500):
        for fingerprint, post_id, external_id, partner_id, version, verdict in (
            Rating.objects.filter(post__text_fingerprint__in=wanted[start : start + 500])
            .order_by()
            .values_list(
                "post__text_fingerprint",
                "post_id",
                "post__external_id",
                "partner_id",
                "version",
                "verdict",
            )
        ):
            posts[post_id] = (fingerprint, external_id)
            current = latest.get((post_id, partner_id))
            if current is None or version > current[0]:
                latest[(post_id, partner_id)] = (version, verdict)
    effective: dict[int, str] = {}
    for (post_id, _), (_, verdict) in latest.items():
        current = effective.get(post_id)
        if current is None or VERDICT_SEVERITY[verdict] < VERDICT_SEVERITY[current]:
            effective[post_id] = verdict
    groups: dict[str, list[_Source]] = {}
    for post_id, verdict in effective.items():
        fingerprint, external_id = posts[post_id]
        groups.setdefault(fingerprint, []).append(_Source(post_id, external_id, verdict))
    for sources in groups.values():
        sources.sort(key=lambda source: (VERDICT_SEVERITY[source.verdict], source.post_id))
    return groups


def _sources_attach(states: Iterable[_PostState]) -> None:
    """Give each unrated post with a propagating fingerprint the rated copy it inherits from.
    A post with ratings of its own keeps them: a partner has looked at this very post."""
    copies = [s for s in states if not s.ratings and propagates(s.text_fingerprint)]
    if not copies:
        return
    groups = _copy_sources(state.text_fingerprint for state in copies)
    for state in copies:
        # Not itself: a first rating of this post committed since its ratings were read above
        # is its own task's business, not a source.
        state.source = next(
            (s for s in groups.get(state.text_fingerprint, []) if s.post_id != state.id), None
        )


def _standing_lock(author: str) -> AuthorStanding:
    standing = AuthorStanding.objects.select_for_update().filter(author_external_id=author).first()
    if standing is None:
        # Two first ratings of a new author race here: ON CONFLICT DO NOTHING lets the loser
        # wait for the winner's row instead of failing.
        AuthorStanding.objects.bulk_create(
            [AuthorStanding(author_external_id=author)], ignore_conflicts=True
        )
        standing = AuthorStanding.objects.select_for_update().get(author_external_id=author)
    return standing


def _sequence_take(count: int) -> int:
    """Reserve ``count`` change-feed numbers; returns the last one.

    Why not an autoincrement id: ids are handed out at INSERT, not at COMMIT. Worker A takes
    id 5, worker B takes 6 and commits first; a ranker reading after=4 gets 6 and moves on to
    after=6, and A's 5, committed a moment later, is never read. Incrementing one counter row
    takes its row lock until our transaction ends, so number N+1 is handed out only after the
    transaction holding N has committed (or rolled back, taking its numbers back with it): the
    feed is ordered by commit. Called last in the transaction, so the lock is held only for the
    final INSERT and the COMMIT."""
    table = connection.ops.quote_name(DemotionSequence._meta.db_table)
    column = connection.ops.quote_name("last")
    sql = f"UPDATE {table} SET {column} = {column} + %s WHERE id = 1 RETURNING {column}"
    with connection.cursor() as cursor:
        cursor.execute(sql, [count])
        row = cursor.fetchone()
        if row is None:  # the migration's row is gone (a flushed test database): recreate it
            start = DemotionChange.objects.aggregate(last=Max("seq"))["last"] or 0
            DemotionSequence.objects.bulk_create(
                [DemotionSequence(pk=1, last=start)], ignore_conflicts=True
            )
            cursor.execute(sql, [count])
            row = cursor.fetchone()
    return row[0]


def _standing_compute(*, strike_times: list[datetime], now: datetime) -> dict:
    window = strike_window()
    times = sorted(t for t in strike_times if t > now - window)
    needed = strikes_for_penalty()
    penalised = len(times) >= needed
    return {
        "strikes": len(times),
        # Never below the penalty multiplier, however many strikes: repeat offenders lose reach,
        # they are never banned (DESIGN §1, §4).
        "multiplier": author_penalty_multiplier() if penalised else 1.0,
        # The penalty lasts until enough strikes have aged out to fall below the threshold.
        "penalty_until": times[len(times) - needed] + window if penalised else None,
        "recheck_at": times[0] + window if times else None,
    }


def _target(state: _PostState, policies, author_multiplier: float) -> dict | None:
    latest = state.latest_by_partner()
    removed = state.status == Post.Status.REMOVED
    source = None if latest else state.source
    if (
        not latest
        and source is None
        and not removed
        and author_multiplier >= 1
        and state.existing is None
    ):
        return None  # nothing to tell the ranker and nothing told before
    reasons = []
    verdict = ""
    post_multiplier, show_label = 1.0, False
    if latest:
        verdict = latest[0].verdict
        post_multiplier, show_label, _ = policies[verdict]
        for rating in latest:
            reasons.append(f"Rated {Verdict(rating.verdict).label} by {rating.partner_name}")
        if len({rating.verdict for rating in latest}) > 1:
            reasons.append("Partners disagree: the most severe latest rating counts")
    elif source is not None:
        # The verdict only: a removal is a moderator's decision about one post, and the strike
        # (state.strike_at, from own ratings) stays with the author who was rated.
        verdict = source.verdict
        post_multiplier, show_label, _ = policies[verdict]
        reasons.append(f"Propagated from post {source.external_id} (exact copy)")
    if author_multiplier < 1:
        reasons.append(
            f"Repeat offender: {strikes_for_penalty()} or more strikes in "
            f"{strike_window().days} days, author multiplier ×{author_multiplier:g}"
        )
    if removed:
        reasons.append("Removed by a moderator")
    multiplier = 0.0 if removed else round(post_multiplier * author_multiplier, 6)
    return {
        "multiplier": multiplier,
        "post_multiplier": post_multiplier,
        "author_multiplier": author_multiplier,
        "verdict": verdict,
        "label": verdict if show_label else "",
        "removed": removed,
        "reasons": reasons,
        "strike_at": state.strike_at(policies),
        "copy_of_id": source.post_id if source is not None else None,
    }


def _write(
    states: list[_PostState], targets: dict[int, dict], now: datetime, copies_due: set[int]
) -> None:
    created, updated, changes = [], [], []
    for state in states:
        values = targets.get(state.id)
        if values is None:
            continue
        if state.id in copies_due:
            values = values | {"copies_due_at": now}
        triple = (values["multiplier"], values["label"], values["removed"])
        row = state.existing
        if row is None:
            row = Demotion(
                post_id=state.id,
                external_id=state.external_id,
                author_external_id=state.author_external_id,
                effective_from=now,
                updated_at=now,
                version=1,
                **values,
            )
            created.append(row)
            state.existing = row
            before = NEUTRAL
        else:
            before = (row.multiplier, row.label, row.removed)
            stored = {name: getattr(row, name) for name in values}
            stored["external_id"], stored["author_external_id"] = (
                row.external_id,
                row.author_external_id,
            )
            wanted = values | {
                "external_id": state.external_id,
                "author_external_id": state.author_external_id,
            }
            if stored == wanted:
                continue  # idempotent: a second run writes nothing
            for name, value in wanted.items():
                setattr(row, name, value)
            row.version += 1
            row.updated_at = now
            if triple != before:
                row.effective_from = now
            updated.append(row)
        if triple != before:
            changes.append(
                DemotionChange(
                    post_id=state.id,
                    external_id=state.external_id,
                    multiplier=triple[0],
                    label=triple[1],
                    removed=triple[2],
                    at=now,
                )
            )
    if created:
        Demotion.objects.bulk_create(created)
    if updated:
        Demotion.objects.bulk_update(
            updated,
            [
                "external_id",
                "author_external_id",
                "multiplier",
                "post_multiplier",
                "author_multiplier",
                "verdict",
                "label",
                "removed",
                "reasons",
                "strike_at",
                "copy_of",
                "copies_due_at",
                "effective_from",
                "updated_at",
                "version",
            ],
        )
    if changes:
        last = _sequence_take(len(changes))
        for offset, change in enumerate(changes):
            change.seq = last - len(changes) + 1 + offset
        DemotionChange.objects.bulk_create(changes)


def _author_apply(*, author: str, post_ids: list[int] | None, now: datetime) -> dict[int, Demotion]:
    """Recompute the given posts of one author (all of them when ``post_ids`` is None), the
    author's standing, and, when the author multiplier changes, every post of the author."""
    standing = _standing_lock(author)
    policies = policy_table()
    if post_ids is None:
        states = _load_posts(Q(author_external_id=author))
    else:
        states = _load_posts(Q(pk__in=post_ids, author_external_id=author))
    strike_times = [s for s in (state.strike_at(policies) for state in states.values()) if s]
    if post_ids is not None:
        strike_times += (
            Demotion.objects.filter(author_external_id=author, strike_at__gt=now - strike_window())
            .exclude(post_id__in=list(states))
            .values_list("strike_at", flat=True)
        )
    computed = _standing_compute(strike_times=strike_times, now=now)
    if post_ids is not None and computed["multiplier"] != standing.multiplier:
        # The author's multiplier changed: it applies to every post of theirs, rated or not.
        states = _load_posts(Q(author_external_id=author))
    if any(getattr(standing, name) != value for name, value in computed.items()):
        for name, value in computed.items():
            setattr(standing, name, value)
        standing.save(update_fields=[*computed, "updated_at"])
    targets = {
        pk: target
        for pk, state in states.items()
        if (target := _target(state, policies, standing.multiplier)) is not None
    }
    ordered = sorted(states.values(), key=lambda state: state.id)
    pending = [r.id for state in ordered for r in state.ratings if not r.applied]
    if pending:
        # Only the ratings read above: one committed meanwhile is not in this computation and
        # keeps its mark empty for its own task (or the reconciler).
        Rating.objects.filter(pk__in=pending, demotion_applied_at__isnull=True).update(
            demotion_applied_at=now
        )
    copies_due = _copies_due(ordered, targets)
    _write(ordered, targets, now, copies_due)  # last: it takes the change feed's counter lock
    for post_id in sorted(copies_due):
        transaction.on_commit(partial(_enqueue_copies, post_id), robust=True)
    return {state.id: state.existing for state in ordered if state.existing is not None}


def _copies_due(states: list[_PostState], targets: dict[int, dict]) -> set[int]:
    """Rated posts whose effective verdict, what their copies inherit, changes here and that
    have exact copies (one indexed query per such post, rare: a verdict changes)."""
    due = set()
    for state in states:
        if not state.ratings or not propagates(state.text_fingerprint):
            continue
        before = state.existing.verdict if state.existing is not None else ""
        if targets[state.id]["verdict"] == before:
            continue
        copies = Post.objects.filter(text_fingerprint=state.text_fingerprint).exclude(pk=state.id)
        if copies.exists():
            due.add(state.id)
    return due


def _enqueue_copies(post_id: int) -> None:
    from factcheck.demotion.receivers import BROKER_ERRORS, PUBLISH_RETRY
    from factcheck.demotion.tasks import demotion_apply_copies

    try:
        demotion_apply_copies.apply_async(args=[post_id], retry=True, retry_policy=PUBLISH_RETRY)
    except BROKER_ERRORS:
        # Demotion.copies_due_at stays set: the reconciler enqueues it again.
        logger.exception(
            "Could not enqueue the copies of post %s; the reconciler will retry.", post_id
        )


def demotion_apply(*, post_id: int) -> Demotion | None:
    """Bring the post's Demotion row (and its author's standing and other posts) in line with
    its ratings, its removal and its author's strikes; append to the change feed what the
    ranker would see change. Idempotent, and safe inside a caller's transaction (moderation
    calls it right after setting or clearing Post.status = removed); there it holds the change
    feed's counter lock until that transaction commits, so call it as late as possible.
    Returns the post's row, or None when the post has nothing to demote and never had."""
    author = Post.objects.filter(pk=post_id).values_list("author_external_id", flat=True).first()
    if author is None:
        return None
    with transaction.atomic():
        rows = _author_apply(author=author, post_ids=[post_id], now=timezone.now())
    return rows.get(post_id)


def author_standing_refresh(
    *, author_external_id: str, now: datetime | None = None
) -> AuthorStanding:
    """Recompute one author's strikes (some may have aged out) and, if their multiplier
    changes, all their posts."""
    with transaction.atomic():
        _author_apply(author=author_external_id, post_ids=[], now=now or timezone.now())
        return AuthorStanding.objects.get(author_external_id=author_external_id)


def author_standings_refresh(*, now: datetime | None = None) -> int:
    """Refresh every author whose oldest strike has aged out since the last computation."""
    now = now or timezone.now()
    due = list(
        AuthorStanding.objects.filter(recheck_at__lte=now).values_list(
            "author_external_id", flat=True
        )
    )
    for author in due:
        author_standing_refresh(author_external_id=author, now=now)
    return len(due)


def demotion_policy_update(
    *,
    policy: DemotionPolicy,
    actor,
    multiplier: float,
    show_label: bool,
    strike: bool,
) -> DemotionPolicy:
    """Change what a verdict does, audited with before/after. On commit, every post whose
    effective verdict it is gets its demotion recomputed; should that enqueue fail, the
    reconciler sees the policy changed after it was last propagated and retries."""
    with transaction.atomic():
        current = DemotionPolicy.objects.select_for_update().get(pk=policy.pk)
        before = model_snapshot(current, POLICY_AUDIT_FIELDS)
        current.multiplier = multiplier
        current.show_label = show_label
        current.strike = strike
        current.full_clean()
        after = model_snapshot(current, POLICY_AUDIT_FIELDS)
        if after == before:
            return current
        current.save()
        audit_record(
            actor=actor, action="demotion_policy.change", obj=current, before=before, after=after
        )
        verdict = current.verdict
        transaction.on_commit(lambda: _enqueue_policy_propagation(verdict), robust=True)
    return current


def _enqueue_policy_propagation(verdict: str) -> None:
    from factcheck.demotion.tasks import demotion_policy_propagate

    demotion_policy_propagate.delay(verdict)


def demotion_policy_propagate(
    *, verdict: str, enqueue: Callable[[list[int]], object], batch_size: int = 500
) -> int:
    """Hand ``enqueue`` the post ids, in batches, whose demotion a change of the verdict's
    policy affects; then mark the policy propagated as of the moment the ids were read (an
    edit made meanwhile is newer and gets its own round). Returns how many posts."""
    started = timezone.now()
    post_ids = list(
        Demotion.objects.filter(verdict=verdict)
        .order_by("post_id")
        .values_list("post_id", flat=True)
    )
    for start in range(0, len(post_ids), batch_size):
        enqueue(post_ids[start : start + batch_size])
    # Only once every batch is handed over: a failure above leaves it for the reconciler.
    DemotionPolicy.objects.filter(verdict=verdict, updated_at__lte=started).update(
        propagated_at=started
    )
    return len(post_ids)


def copy_ids(*, post_id: int) -> list[int]:
    """The posts a change of this post's verdict may concern: unrated posts with its text
    fingerprint, and those still inheriting from it under an older text of it."""
    fingerprint = Post.objects.filter(pk=post_id).values_list("text_fingerprint", flat=True).first()
    ids = set(Demotion.objects.filter(copy_of_id=post_id).values_list("post_id", flat=True))
    if fingerprint is not None and propagates(fingerprint):
        ids.update(
            Post.objects.filter(text_fingerprint=fingerprint)
            .exclude(pk=post_id)
            .exclude(Exists(Rating.objects.filter(post_id=OuterRef("pk"))))
            .values_list("pk", flat=True)
        )
    return sorted(ids)


def demotion_copies_propagate(
    *, post_id: int, enqueue: Callable[[list[int]], object], batch_size: int = 200
) -> int:
    """Hand ``enqueue`` the exact copies of the post, in batches, to re-apply each in its own
    transaction; then clear the post's ``copies_due_at`` if no newer change set it meanwhile.
    Returns how many copies."""
    due = Demotion.objects.filter(post_id=post_id).values_list("copies_due_at", flat=True).first()
    ids = copy_ids(post_id=post_id)
    for start in range(0, len(ids), batch_size):
        enqueue(ids[start : start + batch_size])
    # Only once every batch is handed over: a failure above leaves the mark for the reconciler.
    if due is not None:
        Demotion.objects.filter(post_id=post_id, copies_due_at=due).update(copies_due_at=None)
    return len(ids)


def demotion_apply_new_posts(*, post_ids: list[int]) -> int:
    """For posts just created or whose text changed: give those of a penalised author their
    row (post 1.0 × author penalty), since the ranker reads an absent post as 1.0; give exact
    copies of a rated post its verdict, and take it from one whose text no longer matches;
    and when a rated post's text changed, mark its copies (old and new text) due. Returns
    how many posts were applied."""
    penalised = AuthorStanding.objects.filter(multiplier__lt=1).values("author_external_id")
    own_rating = Exists(Rating.objects.filter(post_id=OuterRef("pk")))
    rated_copy = Exists(
        Rating.objects.filter(post__text_fingerprint=OuterRef("text_fingerprint")).exclude(
            post_id=OuterRef("pk")
        )
    )
    due = Post.objects.filter(pk__in=post_ids).filter(
        Q(author_external_id__in=penalised, demotion__isnull=True)
        | (Q(rated_copy) & ~Q(own_rating) & ~Q(text_fingerprint__in=NON_PROPAGATING_FINGERPRINTS))
        | Q(demotion__copy_of__isnull=False)
    )
    applied = list(due.order_by("pk").values_list("pk", flat=True))
    for post_id in applied:
        demotion_apply(post_id=post_id)
    # A rated post whose text changed: its verdict now belongs to the copies of its new text.
    edited = list(
        Demotion.objects.filter(post_id__in=post_ids, post__ratings__isnull=False)
        .order_by("post_id")
        .values_list("post_id", flat=True)
        .distinct()
    )
    if edited:
        Demotion.objects.filter(post_id__in=edited).update(copies_due_at=timezone.now())
        for post_id in edited:
            _enqueue_copies(post_id)
    return len(applied)
