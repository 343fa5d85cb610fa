"""Turning ratings into the ranker's demotion table (DESIGN §4, §5.4).

Every write for a post happens under its author's AuthorStanding row lock, because an author's
strikes change the combined multiplier of all their posts: two tasks for posts of one author
queue on that lock instead of deadlocking on each other's demotion rows. Lock order, always:
author standing -> demotion rows -> the sequence counter (last, see _sequence_take). Nothing
here locks a Post row, so a caller holding one (moderation removing a post) cannot deadlock
with a worker.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Max, Q
from django.utils import timezone

from factcheck.core.services import audit_record, model_snapshot
from factcheck.demotion.models import (
    DEFAULT_POLICY,
    AuthorStanding,
    Demotion,
    DemotionChange,
    DemotionPolicy,
    DemotionSequence,
)
from factcheck.posts.models import Post
from factcheck.ratings.models import VERDICT_SEVERITY, Rating, Verdict

NEUTRAL = (1.0, "", False)  # what the ranker assumes for a post it is not told about
POLICY_AUDIT_FIELDS = ["verdict", "multiplier", "show_label", "strike"]


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


@dataclass
class _PostState:
    id: int
    external_id: str
    author_external_id: str
    status: str
    ratings: list[_RatingRow] = field(default_factory=list)
    existing: Demotion | None = None

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
        pk: _PostState(pk, external_id, author, status)
        for pk, external_id, author, status in Post.objects.filter(post_filter).values_list(
            "id", "external_id", "author_external_id", "status"
        )
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
    return states


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
    if not latest and not removed and author_multiplier >= 1 and state.existing is None:
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
    }


def _write(states: list[_PostState], targets: dict[int, dict], now: datetime) -> None:
    created, updated, changes = [], [], []
    for state in states:
        values = targets.get(state.id)
        if values is None:
            continue
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
    _write(ordered, targets, now)  # last: it takes the change feed's counter lock
    return {state.id: state.existing for state in ordered if state.existing is not None}


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


def demotion_apply_new_posts(*, post_ids: list[int]) -> int:
    """Give newly ingested posts of a penalised author their row (post 1.0 × author penalty),
    since the ranker reads an absent post as 1.0. Returns how many got one."""
    penalised = AuthorStanding.objects.filter(multiplier__lt=1).values("author_external_id")
    due = list(
        Post.objects.filter(
            pk__in=post_ids, author_external_id__in=penalised, demotion__isnull=True
        ).values_list("pk", flat=True)
    )
    for post_id in due:
        demotion_apply(post_id=post_id)
    return len(due)
