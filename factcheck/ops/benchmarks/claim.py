"""Claim next under load (issue 3): 32 checkers, each on its own connection, claiming at once.

Baseline: a bare single-row UPDATE and its commit, from the same 32 threads on their own rows,
so the claim's figure and its baseline share the machine, the GIL and the commit path. Each
checker completes its claims (as ratings would) in one statement every few claims, outside the
timing, so it stays under the claim limit; a post handed out twice shows as a double claim.
Posts are COPYed in and VACUUMed, as autovacuum would after a bulk load, and deleted after; the
audit events of the claims stay (the audit log is append-only: use a scratch database).
"""

import statistics
import threading
import time
import uuid
from datetime import timedelta
from io import StringIO

from django.db import connection, transaction
from django.test import override_settings
from django.utils import timezone

from factcheck.ops.benchmarks import Context, Figure, p95
from factcheck.partners.models import Membership, Partner, User
from factcheck.posts.models import Post
from factcheck.review import services
from factcheck.review.models import Claim

CLAIMERS = 32
# Claims a checker holds before completing them in one go (the limit is raised to match).
COMPLETE_EVERY = 10
# A language no real partner has, so posts already in the database stay out of the way.
LANGUAGE = "xq"


def run(ctx: Context) -> list[Figure]:
    tag = uuid.uuid4().hex[:8]
    partner, users = _make_checkers(tag)
    try:
        main = ctx.n(20_000, minimum=200)
        ctx.progress(f"claim: {main:,} queued posts, {CLAIMERS} claimers")
        _make_posts(tag, main)
        per_thread = max(20, ctx.n(300, minimum=20))
        # The baseline before and after the claims, pooled: the machine's load drifts.
        bare = _bare_update_latencies(tag, users, per_thread=per_thread // 2)
        started = time.perf_counter()
        latencies, taken = _claim(users, total=main // 2)
        elapsed = time.perf_counter() - started
        bare += _bare_update_latencies(tag, users, per_thread=per_thread // 2)
        doubles = (len(taken) - len(set(taken))) + _posts_claimed_twice(tag)
        _delete_posts(tag)

        small, large = ctx.n(2_000, minimum=100), ctx.n(200_000, minimum=1_000)
        per_size = min(1_000, small // 2)
        sized = {small: [], large: []}
        # Small, large, large, small: the machine's drift falls on both sizes alike. The
        # large queue is claimed from twice (it has posts to spare), the small one is made
        # afresh each time.
        for size, rounds in ((small, 1), (large, 2), (small, 1)):
            ctx.progress(f"claim: p95 with {size:,} queued ({rounds * per_size:,} claims)")
            _make_posts(tag, size)
            for _ in range(rounds):
                times, more = _claim(users, total=per_size)
                sized[size] += times
                doubles += len(more) - len(set(more))
            doubles += _posts_claimed_twice(tag)
            _delete_posts(tag)
    finally:
        _delete_posts(tag)
        _delete_checkers(partner)

    claim_p95, bare_p95 = p95(latencies), p95(bare)
    small_p95, large_p95 = p95(sized[small]), p95(sized[large])
    return [
        Figure(
            name="claims per second",
            value=len(latencies) / elapsed,
            unit="claims/s",
            extra={"claims": len(latencies), "claimers": CLAIMERS, "queued": main},
        ),
        Figure(name="claim p50 latency", value=_ms(statistics.median(latencies)), unit="ms"),
        Figure(
            name="claim p95 latency",
            value=_ms(claim_p95),
            unit="ms",
            baseline_name="bare 1-row UPDATE commit p95",
            baseline=_ms(bare_p95),
            ratio=claim_p95 / bare_p95,
            target="<= 3x",
            met=claim_p95 <= 3 * bare_p95,
            extra={"bare_p50_ms": _ms(statistics.median(bare))},
        ),
        Figure(name="double claims", value=doubles, unit="posts", target="0", met=doubles == 0),
        Figure(
            name=f"claim p95 with {large:,} queued",
            value=_ms(large_p95),
            unit="ms",
            baseline_name=f"p95 with {small:,} queued",
            baseline=_ms(small_p95),
            ratio=large_p95 / small_p95,
            target="<= 1.5x",
            met=large_p95 <= 1.5 * small_p95,
        ),
    ]


def _claim(users: list[User], *, total: int) -> tuple[list[float], list[int]]:
    """Each thread claims until the shared budget is spent; returns latencies and post ids."""
    budget = iter(range(total))
    lock = threading.Lock()
    latencies: list[float] = []
    taken: list[int] = []
    start = threading.Barrier(len(users))

    def work(user: User) -> None:
        user = User.objects.get(pk=user.pk)  # this thread's own connection and cache
        mine, held, times = [], [], []
        start.wait()
        try:
            while True:
                with lock:
                    if next(budget, None) is None:
                        break
                began = time.perf_counter()
                claim = services.claim_next(user=user)
                times.append(time.perf_counter() - began)
                if claim is None:
                    break
                mine.append(claim.post_id)
                held.append(claim.pk)
                if len(held) == COMPLETE_EVERY:
                    _complete(held)
                    held = []
            _complete(held)
        finally:
            connection.close()
            with lock:
                latencies.extend(times)
                taken.extend(mine)

    with override_settings(FACTCHECK_MAX_CLAIMS=COMPLETE_EVERY):
        _in_threads(work, users)
    return latencies, taken


def _complete(claim_ids: list[int]) -> None:
    Claim.objects.filter(pk__in=claim_ids, state=Claim.State.ACTIVE).update(
        state=Claim.State.COMPLETED, ended_at=timezone.now()
    )


def _bare_update_latencies(tag: str, users: list[User], *, per_thread: int) -> list[float]:
    ids = list(
        Post.objects.filter(external_id__startswith=f"bench-{tag}-").values_list("pk", flat=True)[
            : len(users)
        ]
    )
    latencies: list[float] = []
    lock = threading.Lock()
    start = threading.Barrier(len(users))
    sql = f"UPDATE {Post._meta.db_table} SET updated_at = now() WHERE id = %s"

    def work(index: int) -> None:
        times = []
        start.wait()
        try:
            for _ in range(per_thread):
                began = time.perf_counter()
                with transaction.atomic(), connection.cursor() as cursor:
                    cursor.execute(sql, [ids[index % len(ids)]])
                times.append(time.perf_counter() - began)
        finally:
            connection.close()
            with lock:
                latencies.extend(times)

    _in_threads(work, list(range(len(users))))
    return latencies


def _in_threads(work, args: list) -> None:
    errors = []

    def target(arg):
        try:
            work(arg)
        except Exception as exc:  # re-raised below, in the main thread
            errors.append(exc)

    threads = [threading.Thread(target=target, args=(arg,)) for arg in args]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]


def _make_checkers(tag: str) -> tuple[Partner, list[User]]:
    partner = Partner.objects.create(
        name=f"Benchmark partner {tag}",
        slug=f"bench-{tag}",
        languages=[LANGUAGE],
        accredited_until=timezone.localdate() + timedelta(days=30),
    )
    users = User.objects.bulk_create(
        User(email=f"bench-{tag}-{i}@example.invalid", name=f"Claimer {i}") for i in range(CLAIMERS)
    )
    Membership.objects.bulk_create(Membership(user=user, partner=partner) for user in users)
    return partner, users


def _delete_checkers(partner: Partner) -> None:
    user_ids = list(partner.memberships.values_list("user_id", flat=True))
    Claim.objects.filter(partner=partner).delete()
    partner.delete()
    User.objects.filter(pk__in=user_ids).delete()


def _make_posts(tag: str, count: int) -> None:
    """COPY in ``count`` queued posts with distinct trending scores."""
    now = timezone.now()
    columns = [
        "external_id",
        "author_external_id",
        "author_name",
        "url",
        "text",
        "language",
        "language_tag",
        "country",
        "published_at",
        "status",
        "trending_score",
        "shares",
        "views",
        "comments",
        "reactions",
        "reports_hate",
        "reports_violence",
        "text_fingerprint",
        "created_at",
        "updated_at",
    ]
    stamp = now.isoformat()
    buffer = StringIO()
    for i in range(count):
        buffer.write(
            f"bench-{tag}-{i}\tauthor-{i % 5000}\tAuthor\t\tBenchmark post {i}\t{LANGUAGE}\t"
            f"{LANGUAGE}\tUS\t{stamp}\tqueued\t{(i * 7919) % count + i / count}\t{i}\t{i * 10}"
            f"\t0\t0\t0\t0\t\t{stamp}\t{stamp}\n"
        )
    with connection.cursor() as cursor:
        table = Post._meta.db_table
        with cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
            copy.write(buffer.getvalue())
    _vacuum()


def _posts_claimed_twice(tag: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT count(*) FROM (SELECT c.post_id FROM {Claim._meta.db_table} c"
            f" JOIN {Post._meta.db_table} p ON p.id = c.post_id"
            " WHERE p.external_id LIKE %s GROUP BY c.post_id HAVING count(*) > 1) twice",
            [f"bench-{tag}-%"],
        )
        return cursor.fetchone()[0]


def _delete_posts(tag: str) -> None:
    # Raw deletes: the ORM's cascade would load 200,000 posts to delete them.
    pattern = f"bench-{tag}-%"
    posts, claims = Post._meta.db_table, Claim._meta.db_table
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {claims} WHERE post_id IN"
            f" (SELECT id FROM {posts} WHERE external_id LIKE %s)",
            [pattern],
        )
        cursor.execute(f"DELETE FROM {posts} WHERE external_id LIKE %s", [pattern])
    _vacuum()


def _vacuum() -> None:
    """What autovacuum would do after a bulk load or delete, done now: otherwise the next run's
    claims walk the index entries of the rows this one deleted."""
    with connection.cursor() as cursor:
        for model in (Post, Claim):
            cursor.execute(f"VACUUM (ANALYZE) {model._meta.db_table}")


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 3)
