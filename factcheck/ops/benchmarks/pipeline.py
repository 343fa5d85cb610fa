"""Rating to demotion (issue 4), with a real ``celery worker`` process (prefork, 2 processes)
on the configured broker and database.

1. Latency and throughput: ``ctx.n(1000)`` ratings submitted one after another through
   ``rating_create`` (committed, enqueued on commit); a watcher thread reads the change feed
   as a ranker would and notes when each post's change becomes visible. Reported: p50 and p95 of
   submit-to-visible, and ratings/s from the first submit to the last row visible.
   Baseline from the same run: the same work done inline (``rating_create`` then
   ``demotion_apply`` in this process, no broker), per rating and per second.
2. Crash: another ``ctx.n(1000)`` ratings; halfway through the worker is killed with SIGKILL
   (its pool processes too), the rest are submitted with no worker, the worker is restarted
   and the reconciler task is enqueued every 10 s (as beat would, every minute) until every
   rating is applied. Reported: demotions missing and duplicated (target 0 and 0), beside the
   same counts for phase 1.

Everything written is deleted at the end, except audit events (append-only).
"""

import os
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import uuid
from datetime import timedelta

from django.conf import settings
from django.db import connection, connections
from django.db.models import Max
from django.utils import timezone

from factcheck.celery import app as celery_app
from factcheck.demotion import services, tasks
from factcheck.demotion.models import Demotion, DemotionChange
from factcheck.demotion.receivers import enqueue_demotion
from factcheck.ops.benchmarks import Context, Figure
from factcheck.partners.models import Membership, Partner, User
from factcheck.posts.models import Post
from factcheck.ratings.models import Rating
from factcheck.ratings.services import rating_create
from factcheck.ratings.signals import rating_created

RECEIVER_UID = "demotion.enqueue_demotion"
WAIT_SECONDS = 600
RECONCILE_EVERY = 10.0


def run(ctx: Context) -> list[Figure]:
    count = ctx.n(1000, minimum=50)
    inline_count = ctx.n(200, minimum=20)
    tag = uuid.uuid4().hex[:8]
    prefix = f"bench-pl-{tag}-"
    partner, checker = _cast(tag)
    worker = _Worker(tag, settings.VAR_DIR / f"benchmark-worker-{tag}.log")
    try:
        ctx.progress(f"pipeline: {inline_count} ratings applied inline (baseline)")
        inline_ms = _inline(_posts(f"{prefix}inline-", inline_count), partner, checker)

        ctx.progress("pipeline: starting a worker (prefork, concurrency 2)")
        worker.start()
        ctx.progress(f"pipeline: {count:,} ratings through the worker")
        steady = _posts(f"{prefix}steady-", count)
        watcher = _Watcher([post.pk for post in steady])
        watcher.start()
        submitted = _submit(ctx, steady, partner, checker)
        watcher.join(WAIT_SECONDS)
        watcher.stop.set()
        latencies = [
            (watcher.seen[pk] - submitted[pk]) * 1000 for pk in submitted if pk in watcher.seen
        ]
        span = max(watcher.seen.values(), default=0) - min(submitted.values())
        submit_span = max(submitted.values()) - min(submitted.values())
        steady_missing, steady_duplicated = _audit(steady)

        ctx.progress(f"pipeline: {count:,} more ratings, killing the worker halfway")
        crash = _posts(f"{prefix}crash-", count)
        _submit(ctx, crash, partner, checker, kill_at=count // 2, worker=worker)
        unapplied_at_restart = Rating.objects.filter(
            post__in=crash, demotion_applied_at=None
        ).count()
        restarted = time.perf_counter()
        worker.start()
        recovery = _reconcile_until_applied(ctx, crash)
        crash_missing, crash_duplicated = _audit(crash)
    except BaseException:
        ctx.progress(f"pipeline: failed; the worker's log is {worker.log_path}")
        raise
    else:
        worker.log_path.unlink(missing_ok=True)
    finally:
        worker.stop()
        ctx.progress("pipeline: cleaning up")
        _cleanup(prefix, partner, checker)

    inline_p50 = statistics.median(inline_ms)
    inline_rate = 1000 / statistics.mean(inline_ms)
    p50, p95 = statistics.median(latencies), statistics.quantiles(latencies, n=20)[-1]
    rate = len(latencies) / span if span > 0 else 0.0
    return [
        Figure(
            name="rating → demotion visible p50",
            value=round(p50, 1),
            unit="ms",
            baseline_name="inline rate + apply p50",
            baseline=round(inline_p50, 1),
            ratio=round(p50 / inline_p50, 2),
            extra={"ratings": count, "visible": len(latencies)},
        ),
        Figure(
            name="rating → demotion visible p95",
            value=round(p95, 1),
            unit="ms",
            baseline_name="inline rate + apply p95",
            baseline=round(statistics.quantiles(inline_ms, n=20)[-1], 1),
        ),
        Figure(
            name="ratings applied per second",
            value=round(rate, 1),
            unit="ratings/s",
            baseline_name="inline, one process",
            baseline=round(inline_rate, 1),
            ratio=round(rate / inline_rate, 2),
            extra={"submitted_per_second": round(count / submit_span, 1)},
        ),
        Figure(
            name="demotions missing after kill -9",
            value=crash_missing,
            unit="posts",
            baseline_name="without a kill",
            baseline=steady_missing,
            target="0",
            met=crash_missing == 0,
            extra={
                "ratings": count,
                "unapplied_when_restarted": unapplied_at_restart,
                "recovery_seconds": round(recovery - restarted, 1) if recovery else None,
            },
        ),
        Figure(
            name="demotions duplicated after kill -9",
            value=crash_duplicated,
            unit="changes",
            baseline_name="without a kill",
            baseline=steady_duplicated,
            target="0",
            met=crash_duplicated == 0,
        ),
    ]


def _cast(tag: str) -> tuple[Partner, User]:
    partner = Partner.objects.create(
        name=f"Benchmark Partner {tag}",
        slug=f"bench-{tag}",
        languages=["en"],
        accredited_until=timezone.localdate() + timedelta(days=30),
    )
    checker = User.objects.create_user(email=f"bench-{tag}@example.com", name="Benchmark")
    Membership.objects.create(user=checker, partner=partner)
    return partner, checker


def _posts(prefix: str, count: int) -> list[Post]:
    now = timezone.now()
    # One author each: an author's posts queue on their standing, which is not what we time.
    return Post.objects.bulk_create(
        Post(
            external_id=f"{prefix}{n}",
            author_external_id=f"{prefix}author-{n}",
            language="en",
            text="The moon landing was staged in a studio.",
            published_at=now - timedelta(hours=1),
            status=Post.Status.IN_REVIEW,
        )
        for n in range(count)
    )


def _rate(post: Post, partner: Partner, checker: User) -> Rating:
    return rating_create(
        post=post,
        partner=partner,
        checker=checker,
        verdict="false",
        headline="Staged? No: the footage is authentic",
        article_url=f"https://factcheck.example/{post.external_id}",
    )


def _inline(posts: list[Post], partner: Partner, checker: User) -> list[float]:
    rating_created.disconnect(dispatch_uid=RECEIVER_UID)
    try:
        timings = []
        for post in posts:
            start = time.perf_counter()
            _rate(post, partner, checker)
            services.demotion_apply(post_id=post.pk)
            timings.append((time.perf_counter() - start) * 1000)
        return timings
    finally:
        rating_created.connect(enqueue_demotion, dispatch_uid=RECEIVER_UID)


def _submit(ctx, posts, partner, checker, *, kill_at=None, worker=None) -> dict[int, float]:
    submitted = {}
    for index, post in enumerate(posts):
        if index == kill_at:
            ctx.progress(f"pipeline: kill -9 the worker after {index} ratings")
            worker.kill()
        submitted[post.pk] = time.perf_counter()
        _rate(post, partner, checker)
        if (index + 1) % 250 == 0:
            ctx.progress(f"pipeline: {index + 1:,} submitted")
    return submitted


class _Watcher(threading.Thread):
    """Notes when each post's demotion becomes visible to a reader, the way a ranker sees it:
    polling the change feed after the last seq read (its own connection, cheap queries)."""

    def __init__(self, post_ids: list[int]):
        super().__init__(daemon=True)
        self.pending = set(post_ids)
        self.seen: dict[int, float] = {}
        self.stop = threading.Event()
        self.after = DemotionChange.objects.aggregate(last=Max("seq"))["last"] or 0

    def run(self):
        try:
            while self.pending and not self.stop.is_set():
                rows = list(
                    DemotionChange.objects.filter(seq__gt=self.after)
                    .order_by("seq")
                    .values_list("seq", "post_id")
                )
                now = time.perf_counter()
                for seq, post_id in rows:
                    self.after = seq
                    if post_id in self.pending:
                        self.pending.discard(post_id)
                        self.seen[post_id] = now
                time.sleep(0.01)
        finally:
            connections.close_all()


def _reconcile_until_applied(ctx, posts) -> float | None:
    deadline = time.perf_counter() + WAIT_SECONDS
    next_reconcile = time.perf_counter()
    while time.perf_counter() < deadline:
        left = Rating.objects.filter(post__in=posts, demotion_applied_at=None).count()
        if not left:
            return time.perf_counter()
        if time.perf_counter() >= next_reconcile:
            ctx.progress(f"pipeline: {left} unapplied; enqueueing the reconciler")
            tasks.demotion_reconcile.delay()
            next_reconcile = time.perf_counter() + RECONCILE_EVERY
        time.sleep(0.25)
    return None


def _audit(posts) -> tuple[int, int]:
    """(posts rated false with no 0.2 demotion row, change rows beyond one per post)."""
    applied = Demotion.objects.filter(post__in=posts, multiplier=0.2, label="false").count()
    changes = DemotionChange.objects.filter(post__in=posts).count()
    with_change = DemotionChange.objects.filter(post__in=posts).values("post_id").distinct().count()
    return len(posts) - applied, changes - with_change


class _Worker:
    def __init__(self, tag: str, log_path):
        self.tag = tag
        self.log_path = log_path
        self.process = None
        self.starts = 0

    def start(self) -> None:
        self.starts += 1
        name = f"bench-{self.tag}-{self.starts}@{socket.gethostname()}"
        with open(self.log_path, "a") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "factcheck", "worker"]
                + ["--pool", "prefork", "--concurrency", "2", "--loglevel", "WARNING"]
                + ["--without-gossip", "--without-mingle", "-n", name],
                cwd=settings.BASE_DIR,
                env=os.environ.copy(),
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: kill() reaches the pool too
            )
        deadline = time.monotonic() + 60
        while not celery_app.control.ping(destination=[name], timeout=0.5):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"The benchmark worker did not start; see {self.log_path}.")

    def kill(self) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()


def _cleanup(prefix: str, partner: Partner, checker: User) -> None:
    pattern = [f"{prefix}%"]
    posts = "SELECT id FROM posts_post WHERE external_id LIKE %s"
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM demotion_demotionchange WHERE post_id IN ({posts})", pattern)
        cursor.execute(f"DELETE FROM demotion_demotion WHERE post_id IN ({posts})", pattern)
        cursor.execute(f"DELETE FROM ratings_rating WHERE post_id IN ({posts})", pattern)
        cursor.execute(
            "DELETE FROM demotion_authorstanding WHERE author_external_id LIKE %s", pattern
        )
        cursor.execute("DELETE FROM posts_post WHERE external_id LIKE %s", pattern)
    Membership.objects.filter(partner=partner).delete()
    checker.delete()
    partner.delete()
