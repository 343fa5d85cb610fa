"""The fact-checker's workflow: claiming posts from the queue, releasing and skipping them.

Invariants: a post has at most one active claim (a partial unique constraint); a post with a
live claim is ``in_review``; a lease past ``expires_at`` is free for anyone (claim_next and the
``claims_expire`` beat task end it and put the post back in the queue).
"""

import functools
import re
from datetime import datetime, timedelta

import psycopg
from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection, transaction
from django.utils import timezone

from factcheck.core.models import AuditEvent
from factcheck.core.request_context import current_request_id
from factcheck.core.services import actor_label_for, audit_record
from factcheck.partners.access import checker_membership
from factcheck.partners.models import Partner, User
from factcheck.posts.models import Post
from factcheck.ratings.models import Rating
from factcheck.ratings.services import rating_create
from factcheck.review.models import Claim, Skip

# How many stale leases one claim_next ends on its way; the beat task sweeps the rest.
SWEEP_BATCH = 100
_SWEEPER = "system:claims_expire"
# Advisory lock keys of "this checker is claiming" (a transaction-scoped lock: no row written).
_CHECKER_LOCK_SPACE = 0x52455649 << 32


class ClaimError(Exception):
    """A claim action that cannot be done; the message says why, for the checker."""


class ClaimLimitReached(ClaimError):
    pass


class ClaimNotActive(ClaimError):
    pass


def partner_languages(partner: Partner) -> list[str]:
    """The primary language subtags a partner works in, as stored on posts ("pt" for "pt-BR")."""
    return sorted({code.split("-")[0].strip().lower() for code in partner.languages if code})


def claim_next(*, user: User) -> Claim | None:
    """Give ``user`` the most trending post their partner may take, or None when nothing is
    eligible. Raises PermissionDenied (PartnerCannotAct) when the partner may not act and
    ClaimLimitReached at settings.FACTCHECK_MAX_CLAIMS live claims.

    Every checker presses this all day, so on PostgreSQL it is two prepared statements: the
    first takes the checker's advisory lock and asks whether any lease has expired; the second
    takes the post and inserts the claim and its audit event, guarded by the claim limit and the
    partner's standing, which it reads after that lock in a fresh snapshot. Outside a
    transaction (a request, the API) they go to the server with BEGIN and COMMIT in one round
    trip; when a lease has expired, the take does nothing and a second transaction ends the
    stale leases first, so that their posts are free to take.
    """
    membership = checker_membership(user)
    partner = membership.partner
    languages = partner_languages(partner)
    if not languages:
        return None
    now = timezone.now()
    expires_at = now + timedelta(minutes=settings.FACTCHECK_CLAIM_MINUTES)
    args = {
        "user": user,
        "partner": partner,
        "languages": languages,
        "now": now,
        "expires_at": expires_at,
    }
    lease_expired = True
    if connection.vendor == "postgresql" and connection.get_autocommit():
        lease_expired, row = _claim_in_one_round_trip(**args)
    if lease_expired:
        take = _claim_on_postgres if connection.vendor == "postgresql" else _claim_on_sqlite
        with transaction.atomic():
            expired, row = take(**args)
            for pk, post_id, checker_id in expired:
                _audit_ended(pk, post_id, checker_id, state=Claim.State.EXPIRED, actor=_SWEEPER)
    if row is None:
        _explain_refusal(user=user, now=now)
        return None
    claim = Claim(
        pk=row[0],
        post_id=row[1],
        checker=user,
        partner=partner,
        claimed_at=now,
        expires_at=expires_at,
        state=Claim.State.ACTIVE,
    )
    claim._state.adding = False
    return claim


def _claim_on_postgres(
    *, user: User, partner: Partner, languages: list[str], now: datetime, expires_at: datetime
) -> tuple[list[tuple], tuple[int, int] | None]:
    """Returns the stale claims it ended (pk, post_id, checker_id) and (claim id, post id)."""
    lock, take = _lock_and_take(
        user=user, partner=partner, languages=languages, now=now, expires_at=expires_at
    )
    ((locked,),) = _run_prepared([lock])
    ended = []
    if locked[1]:
        # Some lease has expired: end those in these languages first (the sweep takes the
        # same advisory lock again, which a transaction may), so the take sees their posts.
        sweep = (_sweep_sql(), _sweep_params(user=user, languages=languages, now=now))
        (swept,) = _run_prepared([sweep])
        ended = [tuple(row[1:]) for row in swept if row[1] is not None]
    (taken,) = _run_prepared([take])
    return ended, (taken[0] if taken else None)


def _claim_in_one_round_trip(
    *, user: User, partner: Partner, languages: list[str], now: datetime, expires_at: datetime
) -> tuple[bool, tuple[int, int] | None]:
    """PostgreSQL outside any transaction: BEGIN, the checker's lock, the take and COMMIT, sent
    together in psycopg's pipeline mode, so the claim costs one round trip to the server where
    a bare UPDATE and its commit cost three. Returns whether some lease has expired (then the
    take was skipped: the caller sweeps and takes again) and (claim id, post id) or None."""
    (lock_sql, lock_params), (take_sql, take_params) = _lock_and_take(
        user=user,
        partner=partner,
        languages=languages,
        now=now,
        expires_at=expires_at,
        unless_expired=True,
    )
    connection.ensure_connection()
    conn = connection.connection
    with (
        connection.wrap_database_errors,
        psycopg.Cursor(conn) as lock_cursor,
        psycopg.Cursor(conn) as take_cursor,
    ):
        try:
            with conn.pipeline():
                conn.execute("BEGIN")
                lock_cursor.execute(lock_sql, lock_params, prepare=True)
                take_cursor.execute(take_sql, take_params, prepare=True)
                conn.execute("COMMIT")
        except psycopg.Error:
            # After an error the server skips the rest of the pipeline, COMMIT included.
            if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                conn.execute("ROLLBACK")
            raise
        ((_, lease_expired),) = lock_cursor.fetchall()
        taken = take_cursor.fetchall()
    return lease_expired, (taken[0] if taken else None)


def _lock_and_take(
    *,
    user: User,
    partner: Partner,
    languages: list[str],
    now: datetime,
    expires_at: datetime,
    unless_expired: bool = False,
) -> tuple[tuple[str, list], tuple[str, list]]:
    """The two statements of a claim on PostgreSQL, as (sql, parameters): the checker's lock
    (and whether any lease has expired), and the take with its claim and audit rows."""
    lock = (_lock_sql(), [_CHECKER_LOCK_SPACE + user.pk, now])
    take = (
        _claim_sql(len(languages), lock=" FOR UPDATE SKIP LOCKED", unless_expired=unless_expired),
        [
            *_take_params(user=user, partner=partner, languages=languages, now=now),
            *([now] if unless_expired else []),
            *_claim_params(user=user, partner=partner, now=now, expires_at=expires_at),
        ],
    )
    return lock, take


def _run_prepared(statements: list[tuple[str, list]]) -> list[list[tuple]]:
    """Run the statements in order as server-side prepared statements (psycopg prepares each
    once per connection, so the planner's work is not repeated per claim) and return each
    one's rows. Django's cursors bind client-side and never prepare, hence the raw psycopg
    cursor; it shares Django's connection and its transaction. Inside a transaction they go
    one after the other: the sweep runs only when the lock statement says a lease expired."""
    connection.ensure_connection()
    with connection.wrap_database_errors, psycopg.Cursor(connection.connection) as cursor:
        results = []
        for sql, params in statements:
            cursor.execute(sql, params, prepare=True)
            results.append(cursor.fetchall())
        return results


def _claim_on_sqlite(
    *, user: User, partner: Partner, languages: list[str], now: datetime, expires_at: datetime
) -> tuple[list[tuple], tuple[int, int] | None]:
    # IMMEDIATE transactions hold SQLite's single write lock from BEGIN: no other checker
    # (nor this one's second click) can interleave, so no locking clauses are needed.
    expired = _due_claims(now=now, languages=languages, limit=SWEEP_BATCH)
    _end_claims(expired, state=Claim.State.EXPIRED, now=now, actor=None)
    with connection.cursor() as cursor:
        cursor.execute(
            _take_sql(len(languages), lock=""),
            _take_params(user=user, partner=partner, languages=languages, now=now),
        )
        row = cursor.fetchone()
    if row is None:
        return expired, None
    claim = Claim.objects.create(
        post_id=row[0], checker=user, partner=partner, claimed_at=now, expires_at=expires_at
    )
    _audit_created(claim, user)
    return expired, (claim.pk, row[0])


@functools.cache
def _tables() -> dict[str, str]:
    """The names the statements below are formatted with: tables, and the states they test as
    SQL literals. Literals, not parameters: a prepared statement's generic plan can use a
    partial index (``WHERE status = 'queued'``) only when the query names that very value, and
    without it PostgreSQL planned every claim afresh."""
    qn = connection.ops.quote_name
    return {
        "posts": qn(Post._meta.db_table),
        "skips": qn(Skip._meta.db_table),
        "claims": qn(Claim._meta.db_table),
        "partners": qn(Partner._meta.db_table),
        "events": qn(AuditEvent._meta.db_table),
        "queued": _literal(Post.Status.QUEUED),
        "in_review": _literal(Post.Status.IN_REVIEW),
        "active": _literal(Claim.State.ACTIVE),
        "expired": _literal(Claim.State.EXPIRED),
        "partner_active": _literal(Partner.Status.ACTIVE),
    }


def _literal(constant: str) -> str:
    if not re.fullmatch(r"[a-z_]+", constant):
        raise ValueError(f"not a plain constant: {constant!r}")
    return f"'{constant}'"


# PostgreSQL: serialise this checker's own claims (a double click must not pass the limit
# twice: a transaction-scoped advisory lock, no row written) and end stale leases in these
# languages, so the take that follows sees their posts queued. Claim rows are locked before
# post rows, as on every path that ends a claim, so no deadlock.
_SWEEP_SQL = """
    WITH due AS (
        SELECT c.id FROM {claims} c JOIN {posts} p ON p.id = c.post_id
        WHERE c.state = {active} AND c.expires_at <= %s AND p.language = ANY(%s)
        ORDER BY c.expires_at LIMIT %s FOR UPDATE OF c SKIP LOCKED
    ),
    ended AS (
        UPDATE {claims} c SET state = {expired}, ended_at = %s FROM due
        WHERE c.id = due.id RETURNING c.id, c.post_id, c.checker_id
    ),
    requeued AS (
        UPDATE {posts} p SET status = {queued}, updated_at = %s FROM ended
        WHERE p.id = ended.post_id AND p.status = {in_review}
    )
    SELECT pg_advisory_xact_lock(%s), ended.id, ended.post_id, ended.checker_id
    FROM (SELECT 1) AS one LEFT JOIN ended ON true
"""


# PostgreSQL, the common path: this checker's lock (see below), and whether any active lease
# has expired at all, which the partial expiry index answers at once; only then does the
# sweep statement run.
_LOCK_SQL = """
    SELECT pg_advisory_xact_lock(%s),
           EXISTS (SELECT 1 FROM {claims} WHERE state = {active} AND expires_at <= %s)
"""


@functools.cache
def _lock_sql() -> str:
    return _LOCK_SQL.format(**_tables())


@functools.cache
def _sweep_sql() -> str:
    return _SWEEP_SQL.format(**_tables())


def _sweep_params(*, user: User, languages: list[str], now: datetime) -> list:
    return [now, languages, SWEEP_BATCH, now, now, _CHECKER_LOCK_SPACE + user.pk]


@functools.cache
def _take_sql(language_count: int, *, lock: str, unless_expired: bool = False) -> str:
    """Mark the top eligible queued post in_review: a conditional UPDATE over
    ``SELECT … FOR UPDATE SKIP LOCKED`` (``lock`` is empty on SQLite). RETURNING its id.

    Each language is its own ``LIMIT 1`` subquery so PostgreSQL walks post_queue_idx
    (language, trending_score DESC) in order instead of sorting every queued post; the best
    of those few candidates wins. SKIP LOCKED lets concurrent checkers pass over a row another
    transaction is taking. The claim limit and the partner's standing are conditions of the
    same statement, read after the checker's lock. ``unless_expired`` adds a condition that
    no active lease has expired (one more parameter: now).
    """
    tables = _tables()
    candidates = " UNION ALL ".join(
        "SELECT * FROM (SELECT p.id, p.trending_score FROM {posts} p"
        " WHERE p.status = {queued} AND p.language = %s AND NOT EXISTS"
        " (SELECT 1 FROM {skips} s WHERE s.post_id = p.id AND s.partner_id = %s)"
        " ORDER BY p.trending_score DESC LIMIT 1{lock}) c{index}".format(
            **tables, lock=lock, index=index
        )
        for index in range(language_count)
    )
    return (
        "UPDATE {posts} SET status = {in_review}, updated_at = %s"
        " WHERE id = (SELECT c.id FROM ({candidates}) c ORDER BY c.trending_score DESC LIMIT 1)"
        " AND status = {queued}"
        " AND (SELECT count(*) FROM {claims} WHERE checker_id = %s AND state = {active}"
        " AND expires_at > %s) < %s"
        " AND EXISTS (SELECT 1 FROM {partners} WHERE id = %s AND status = {partner_active}"
        " AND accredited_until >= %s)"
        "{unless_expired}"
        " RETURNING id"
    ).format(
        **tables,
        candidates=candidates,
        unless_expired=(
            " AND NOT EXISTS (SELECT 1 FROM {claims} WHERE state = {active} AND expires_at <= %s)"
        ).format(**tables)
        if unless_expired
        else "",
    )


def _take_params(*, user: User, partner: Partner, languages: list[str], now: datetime) -> list:
    params: list = [now]
    for language in languages:
        params += [language, partner.pk]
    return [
        *params,
        user.pk,
        now,
        settings.FACTCHECK_MAX_CLAIMS,
        partner.pk,
        timezone.localdate(now),
    ]


@functools.cache
def _claim_sql(language_count: int, *, lock: str, unless_expired: bool = False) -> str:
    """PostgreSQL: the take, the claim and its audit event in one statement. The audit row has
    the columns audit_record writes; it is inlined only because this is the hot path."""
    return (
        "WITH taken AS ({take}),"
        " claim AS (INSERT INTO {claims}"
        " (post_id, checker_id, partner_id, claimed_at, expires_at, state)"
        " SELECT id, %s, %s, %s, %s, {active} FROM taken RETURNING id, post_id),"
        " audit AS (INSERT INTO {events} (created_at, actor_id, actor_label, action,"
        " object_type, object_id, object_repr, after, request_id)"
        " SELECT %s, %s, %s, %s, %s, claim.id::text,"
        " 'claim ' || claim.id || ' on post ' || claim.post_id,"
        " jsonb_build_object('post_id', claim.post_id, 'expires_at', %s::text), %s FROM claim)"
        " SELECT id, post_id FROM claim"
    ).format(**_tables(), take=_take_sql(language_count, lock=lock, unless_expired=unless_expired))


def _claim_params(*, user: User, partner: Partner, now: datetime, expires_at: datetime) -> list:
    return [
        user.pk,
        partner.pk,
        now,
        expires_at,
        timezone.now(),
        user.pk,
        actor_label_for(user)[:200],
        "claim.create",
        "review.claim",
        expires_at.isoformat(),
        current_request_id.get(),
    ]


def _audit_created(claim: Claim, user: User) -> None:
    audit_record(
        actor=user,
        action="claim.create",
        obj=claim,
        object_repr=f"claim {claim.pk} on post {claim.post_id}",
        after={"post_id": claim.post_id, "expires_at": claim.expires_at.isoformat()},
    )


def _explain_refusal(*, user: User, now: datetime) -> None:
    """Nothing was taken: raise if that is because of the partner or the claim limit (read
    afresh), and return when nothing is eligible."""
    user.__dict__.pop("_membership", None)  # the partner may have changed since the request began
    checker_membership(user)
    live = Claim.objects.live(now).filter(checker=user).count()
    if live >= settings.FACTCHECK_MAX_CLAIMS:
        raise ClaimLimitReached(
            f"You already hold {live} claims, the most one checker may hold. Rate, skip "
            "or release one of them first."
        )


def _due_claims(*, now: datetime, languages: list[str] | None = None, limit: int) -> list[tuple]:
    """Active claims past their lease, locked; rows another transaction holds are skipped."""
    due = Claim.objects.filter(state=Claim.State.ACTIVE, expires_at__lte=now)
    if languages is not None:
        due = due.filter(post__language__in=languages)
    return list(
        due.select_for_update(skip_locked=True, of=("self",))
        .order_by("expires_at")
        .values_list("pk", "post_id", "checker_id")[:limit]
    )


def _end_claims(rows: list[tuple], *, state: str, now: datetime, actor) -> list[int]:
    """End the given active claims (pk, post_id, checker_id) and put their posts back in the
    queue. Conditional updates: a claim that already ended stays as it was. ``actor=None``
    leaves the audit events to the caller."""
    if not rows:
        return []
    # The rows were read inside this transaction under a row lock (PostgreSQL) or the write
    # lock (SQLite's IMMEDIATE transactions), so they are all still active.
    ids = [row[0] for row in rows]
    Claim.objects.filter(pk__in=ids, state=Claim.State.ACTIVE).update(state=state, ended_at=now)
    Post.objects.filter(pk__in=[row[1] for row in rows], status=Post.Status.IN_REVIEW).update(
        status=Post.Status.QUEUED, updated_at=now
    )
    if actor is not None:
        for pk, post_id, checker_id in rows:
            _audit_ended(pk, post_id, checker_id, state=state, actor=actor)
    return ids


def _audit_ended(pk: int, post_id: int, checker_id: int, *, state: str, actor) -> None:
    audit_record(
        actor=actor,
        action={Claim.State.EXPIRED: "claim.expire", Claim.State.RELEASED: "claim.release"}[state],
        object_type="review.claim",
        object_id=str(pk),
        object_repr=f"claim {pk} on post {post_id}",
        before={"state": Claim.State.ACTIVE},
        after={"state": state, "checker_id": checker_id},
    )


def claims_expire(*, now: datetime | None = None, batch: int = 500) -> int:
    """End every lease past its time and return the posts to the queue. Safe to run at once
    in several processes (SKIP LOCKED) and to run twice (conditional updates)."""
    now = now or timezone.now()
    total = 0
    while True:
        with transaction.atomic():
            rows = _due_claims(now=now, limit=batch)
            total += len(_end_claims(rows, state=Claim.State.EXPIRED, now=now, actor=_SWEEPER))
        if len(rows) < batch:
            return total


def _own_active_claim(claim: Claim, user: User) -> None:
    checker_membership(user)
    if claim.checker_id != user.pk:
        raise PermissionDenied("This is not your claim.")


def claim_release(*, claim: Claim, user: User) -> Claim:
    """Give the post back to the queue."""
    _own_active_claim(claim, user)
    now = timezone.now()
    with transaction.atomic():
        _end_own_claim(claim, state=Claim.State.RELEASED, now=now)
        audit_record(
            actor=user,
            action="claim.release",
            obj=claim,
            object_repr=f"claim {claim.pk} on post {claim.post_id}",
            before={"state": Claim.State.ACTIVE},
            after={"state": Claim.State.RELEASED},
        )
    return claim


def claim_skip(*, claim: Claim, user: User, reason: str, note: str = "") -> Claim:
    """Pass on the post for the whole partner: it goes back to the queue for other partners
    and never shows in this partner's queue again."""
    _own_active_claim(claim, user)
    note = (note or "").strip()
    errors = {}
    if reason not in Skip.Reason.values:
        errors["reason"] = ["Choose why you are skipping this post."]
    if len(note) > 2000:
        errors["note"] = ["Keep the note under 2,000 characters."]
    if errors:
        raise ValidationError(errors)
    now = timezone.now()
    with transaction.atomic():
        _end_own_claim(claim, state=Claim.State.SKIPPED, now=now)
        Skip.objects.get_or_create(
            post_id=claim.post_id,
            partner_id=claim.partner_id,
            defaults={"checker": user, "reason": reason, "note": note},
        )
        audit_record(
            actor=user,
            action="claim.skip",
            obj=claim,
            object_repr=f"claim {claim.pk} on post {claim.post_id}",
            before={"state": Claim.State.ACTIVE},
            after={"state": Claim.State.SKIPPED, "reason": reason, "note": note[:300]},
        )
    return claim


def _end_own_claim(claim: Claim, *, state: str, now: datetime) -> None:
    # Conditional: of a release, a skip, a rating and the expiry sweep, exactly one wins.
    updated = Claim.objects.filter(pk=claim.pk, state=Claim.State.ACTIVE).update(
        state=state, ended_at=now
    )
    if not updated:
        claim.refresh_from_db(fields=["state", "ended_at"])
        raise ClaimNotActive(
            f"This claim has already ended ({claim.get_state_display().lower()}); "
            "claim the next post from the queue."
        )
    Post.objects.filter(pk=claim.post_id, status=Post.Status.IN_REVIEW).update(
        status=Post.Status.QUEUED, updated_at=now
    )
    claim.state, claim.ended_at = state, now


def claims_release_for_partner(*, partner: Partner, actor="system:partner_suspended") -> int:
    """Release every active claim of a partner at once (suspension, lapsed accreditation)."""
    now = timezone.now()
    with transaction.atomic():
        rows = list(
            Claim.objects.filter(partner=partner, state=Claim.State.ACTIVE)
            .select_for_update()
            .values_list("pk", "post_id", "checker_id")
        )
        return len(_end_claims(rows, state=Claim.State.RELEASED, now=now, actor=actor))


def claims_release_for_user(*, user: User, actor="system:member_deactivated") -> int:
    """Release every active claim of a checker who may no longer act."""
    now = timezone.now()
    with transaction.atomic():
        rows = list(
            Claim.objects.filter(checker=user, state=Claim.State.ACTIVE)
            .select_for_update()
            .values_list("pk", "post_id", "checker_id")
        )
        return len(_end_claims(rows, state=Claim.State.RELEASED, now=now, actor=actor))


def rating_submit(*, claim: Claim, user: User, **fields) -> Rating:
    """Rate the post of ``user``'s live claim: the claim completes and the rating is saved in
    one transaction, so a refused rating leaves the claim as it was. ``fields`` are those of
    ``factcheck.ratings.services.rating_create``; its ValidationError (keyed by field) passes
    through. Raises ClaimNotActive once the claim has ended or its lease has run out."""
    _own_active_claim(claim, user)
    now = timezone.now()
    with transaction.atomic():
        # The claim row first, then the post (rating_create locks it): the order every
        # claim-ending path keeps. The condition makes a rating and an expiry sweep exclusive.
        updated = Claim.objects.filter(
            pk=claim.pk, state=Claim.State.ACTIVE, expires_at__gt=now
        ).update(state=Claim.State.COMPLETED, ended_at=now)
        if not updated:
            raise ClaimNotActive(
                "Your claim on this post has ended (it expired or was released), so the "
                "rating was not saved. Claim the next post from the queue."
            )
        rating = rating_create(post=claim.post, partner=claim.partner, checker=user, **fields)
        audit_record(
            actor=user,
            action="claim.complete",
            obj=claim,
            object_repr=f"claim {claim.pk} on post {claim.post_id}",
            before={"state": Claim.State.ACTIVE},
            after={"state": Claim.State.COMPLETED, "rating_id": rating.pk},
        )
    claim.state, claim.ended_at = Claim.State.COMPLETED, now
    return rating
