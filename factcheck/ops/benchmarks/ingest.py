"""Ingest (issue 3): 20,000 posts in batches of 1,000 through POST /api/v1/posts/ingest, with a
real ingest token, in process through Django's test client (no network, so the figure is the
endpoint's own cost: middleware, auth, JSON, validation, the statements, the commit and the
posts_ingested receivers of the other apps).

Baselines, from the same run on the same rows:
- COPY: psycopg's ``cursor.copy`` of the same post rows into a scratch table made ``LIKE
  posts_post INCLUDING ALL`` (same columns and indexes), 1,000 rows per transaction like the
  endpoint. Target: ingest >= 0.25x its rate.
- one upsert per post: ``Post.objects.update_or_create`` in a loop, in one transaction, the way
  a naive view would write; 100 posts beside each batch (a per-post rate does not depend on how
  many). Target: ingest >= 20x its rate.
The three take turns batch by batch, so a load that comes and goes on a shared machine hits
all of them alike; rates are totals over all batches, and the median per-batch ratios are in
``extra``. Also measured: the same batches again (all unchanged), a round with new snapshots
(all updated), and plain-Python validation of 1,000 posts against a DRF serializer per item.
Everything written is deleted at the end.
"""

import gc
import json
import random
import statistics
import time
import uuid
from datetime import timedelta

from django.db import connection, transaction
from django.test import Client
from django.test.utils import override_settings
from django.utils import timezone

from factcheck.core.models import AuditEvent
from factcheck.ops.benchmarks import Context, Figure, make_token, p95
from factcheck.partners.models import ApiClient
from factcheck.posts.fingerprints import text_fingerprint
from factcheck.posts.models import EngagementSnapshot, Post
from factcheck.posts.validation import validate_items

BATCH = 1000
# Posts written one by one beside each batch: the per-row rate does not depend on how many,
# and a whole batch at that pace would stretch the run to minutes.
PER_ROW_CHUNK = 100
SCRATCH_TABLE = "bench_ingest_copy"
_WORDS = (
    "vaccine election flood minister secret cure leaked video tonight share before deleted "
    "proof hospital council bridge water poisoned million votes machine scientists admit"
)
WORDS = _WORDS.split()


def run(ctx: Context) -> list[Figure]:
    total = max(BATCH, ctx.n(20_000) // BATCH * BATCH)
    tag = uuid.uuid4().hex[:8]
    client_name = f"benchmark-ingest-{tag}"
    token = make_token(client_name, "ingest")
    ctx.progress(f"ingest: {total:,} posts in batches of {BATCH:,}")
    # DEBUG would keep every query in memory, a cost production does not pay.
    with override_settings(DEBUG=False, ALLOWED_HOSTS=["testserver"]):
        try:
            return _measure(ctx, tag, total, token)
        finally:
            ctx.progress("ingest: cleaning up")
            _cleanup(tag, client_name)


def _measure(ctx: Context, tag: str, total: int, token: str) -> list[Figure]:
    client = Client(HTTP_AUTHORIZATION=f"Bearer {token}")
    items = _items(f"bench-{tag}-", total, seed=1)
    bodies = [_body(items[start : start + BATCH]) for start in range(0, total, BATCH)]
    copy_rows = _copy_rows(items)
    row_items = _items(f"bench-{tag}-row-", len(bodies) * PER_ROW_CHUNK, seed=2)
    ingest_ms, copy_ms, per_row_ms = [], [], []
    # Warm up: the first batch opens the broker connection of the posts_ingested receivers.
    _post(client, _body(_items(f"bench-{tag}-warm-", 10, seed=3)))
    grown = _grown(items)
    grown_bodies = [_body(grown[start : start + BATCH]) for start in range(0, total, BATCH)]
    # The workload held here (tens of thousands of dicts) is not the server's: keep the
    # garbage collector from scanning it in the middle of the endpoint's measured requests.
    gc.freeze()
    ctx.progress(f"ingest: {len(bodies)} rounds of endpoint, COPY and update_or_create")
    _scratch_create()
    try:
        for number, body in enumerate(bodies):
            # Interleaved batch by batch, so all three meet the same load on a shared machine.
            elapsed, answer = _post(client, body)
            assert answer == {"created": BATCH, "updated": 0, "unchanged": 0}, answer
            ingest_ms.append(elapsed)
            copy_ms.append(_copy(copy_rows[number * BATCH : (number + 1) * BATCH]))
            chunk = row_items[number * PER_ROW_CHUNK : (number + 1) * PER_ROW_CHUNK]
            per_row_ms.append(_update_or_create(chunk) * BATCH / PER_ROW_CHUNK)
        ctx.progress("ingest: the same batches again (unchanged), then grown (new snapshots)")
        resend_ms = [_post(client, body)[0] for body in bodies]
        update_ms = [_post(client, body)[0] for body in grown_bodies]
    finally:
        gc.unfreeze()
        _scratch_drop()
    ctx.progress("ingest: validation, plain Python against a DRF serializer")
    plain_ms, drf_ms = _validation_ms(_items(f"bench-{tag}-v-", BATCH, seed=7))

    def rate(milliseconds: list[float]) -> float:
        return BATCH * len(milliseconds) / (sum(milliseconds) / 1000)

    ingest_rate, copy_rate, per_row_rate = rate(ingest_ms), rate(copy_ms), rate(per_row_ms)
    extra = {
        "batch_ms_p50": round(statistics.median(ingest_ms), 1),
        "batch_ms_p95": round(p95(ingest_ms), 1),
        "copy_batch_ms_p50": round(statistics.median(copy_ms), 1),
        "median_batch_ratio_to_copy": round(
            statistics.median(c / i for c, i in zip(copy_ms, ingest_ms, strict=True)), 3
        ),
        "median_batch_ratio_to_update_or_create": round(
            statistics.median(r / i for r, i in zip(per_row_ms, ingest_ms, strict=True)), 1
        ),
        "resend_unchanged_posts_per_s": round(rate(resend_ms)),
        "update_new_snapshot_posts_per_s": round(rate(update_ms)),
        "update_or_create_posts_measured": len(row_items),
    }
    return [
        Figure(
            name=f"ingest {total:,} posts, batches of {BATCH:,}",
            value=round(ingest_rate),
            unit="posts/s",
            baseline_name="COPY of the same rows",
            baseline=round(copy_rate),
            ratio=ingest_rate / copy_rate,
            target=">= 0.25x COPY",
            met=ingest_rate >= 0.25 * copy_rate,
            extra=extra,
        ),
        Figure(
            name="ingest vs one upsert per post",
            value=round(ingest_rate),
            unit="posts/s",
            baseline_name="update_or_create per post",
            baseline=round(per_row_rate),
            ratio=ingest_rate / per_row_rate,
            target=">= 20x",
            met=ingest_rate >= 20 * per_row_rate,
        ),
        Figure(
            name=f"validate {BATCH:,} posts (plain Python)",
            value=round(plain_ms, 2),
            unit="ms",
            baseline_name="DRF serializer, many=True",
            baseline=round(drf_ms, 2),
            ratio=plain_ms / drf_ms,
            target="informational: lower is better",
        ),
    ]


# --- workload -----------------------------------------------------------------------------


def _items(prefix: str, count: int, *, seed: int) -> list[dict]:
    rng = random.Random(seed)
    now = timezone.now()
    items = []
    for number in range(count):
        published = now - timedelta(minutes=rng.randrange(60, 3000))
        views = rng.randrange(100, 200_000)
        items.append(
            {
                "id": f"{prefix}{number:06d}",
                "author": {"id": f"bench-author-{rng.randrange(5000)}", "name": "Bench Author"},
                "url": f"https://social.example/p/{prefix}{number}",
                "text": " ".join(rng.choices(WORDS, k=rng.randrange(12, 40))),
                "language": rng.choice(["en", "es", "fr", "pt-BR"]),
                "country": rng.choice(["US", "MX", "FR", "BR"]),
                "published_at": published.isoformat(),
                "metrics": {
                    "observed_at": (now - timedelta(minutes=30)).isoformat(),
                    "shares": views // rng.randrange(20, 200),
                    "views": views,
                    "comments": views // 50,
                    "reactions": views // 10,
                    "reports_hate": rng.randrange(3),
                    "reports_violence": 0,
                },
            }
        )
    return items


def _grown(items: list[dict]) -> list[dict]:
    observed = timezone.now().isoformat()
    grown = []
    for item in items:
        metrics = item["metrics"]
        grown.append(
            {
                **item,
                "metrics": {
                    **metrics,
                    "observed_at": observed,
                    "shares": metrics["shares"] + 7,
                    "views": metrics["views"] + 500,
                },
            }
        )
    return grown


def _body(items: list[dict]) -> bytes:
    return json.dumps({"posts": items}).encode()


# --- the endpoint and the baselines ----------------------------------------------------------


def _post(client: Client, body: bytes) -> tuple[float, dict]:
    started = time.perf_counter()
    response = client.post("/api/v1/posts/ingest", body, content_type="application/json")
    elapsed = (time.perf_counter() - started) * 1000
    if response.status_code != 200:
        raise RuntimeError(f"ingest answered {response.status_code}: {response.content[:500]}")
    return elapsed, response.json()


_COPY_COLUMNS = (
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
    "observed_at",
    "shares",
    "views",
    "comments",
    "reactions",
    "reports_hate",
    "reports_violence",
    "text_fingerprint",
    "created_at",
    "updated_at",
)


def _copy_rows(items: list[dict]) -> list[tuple]:
    """The rows ingest writes for these items, ready before the clock starts."""
    now = timezone.now()
    rows = []
    for item in items:
        metrics = item["metrics"]
        language = item["language"]
        rows.append(
            (
                item["id"],
                item["author"]["id"],
                item["author"]["name"],
                item["url"],
                item["text"],
                language.split("-")[0],
                language,
                item["country"],
                item["published_at"],
                "queued",
                1.0,
                metrics["observed_at"],
                metrics["shares"],
                metrics["views"],
                metrics["comments"],
                metrics["reactions"],
                metrics["reports_hate"],
                metrics["reports_violence"],
                text_fingerprint(item["text"]),
                now,
                now,
            )
        )
    return rows


def _scratch_create() -> None:
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {SCRATCH_TABLE}")
        cursor.execute(f"CREATE TABLE {SCRATCH_TABLE} (LIKE {Post._meta.db_table} INCLUDING ALL)")
        # Columns other apps may add to posts_post, which this COPY does not fill.
        for column in _scratch_not_null_without_default(cursor):
            cursor.execute(
                f"ALTER TABLE {SCRATCH_TABLE} ALTER COLUMN {quote(column)} DROP NOT NULL"
            )


def _scratch_drop() -> None:
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {SCRATCH_TABLE}")


def _copy(rows: list[tuple]) -> float:
    """COPY one batch of rows in its own transaction, like an ingest batch; milliseconds."""
    columns = ", ".join(map(connection.ops.quote_name, _COPY_COLUMNS))
    started = time.perf_counter()
    with transaction.atomic(), connection.cursor() as cursor:
        raw = cursor.cursor  # psycopg's own cursor: COPY is not in Django's API
        with raw.copy(f"COPY {SCRATCH_TABLE} ({columns}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
    return (time.perf_counter() - started) * 1000


def _scratch_not_null_without_default(cursor) -> list[str]:
    cursor.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = %s "
        "AND is_nullable = 'NO' AND column_default IS NULL AND is_identity = 'NO' "
        "AND column_name <> ALL(%s)",
        [SCRATCH_TABLE, list(_COPY_COLUMNS)],
    )
    return [row[0] for row in cursor.fetchall()]


def _update_or_create(items: list[dict]) -> float:
    """One update_or_create per post, in one transaction; milliseconds."""
    started = time.perf_counter()
    with transaction.atomic():
        for item in items:
            metrics = item["metrics"]
            Post.objects.update_or_create(
                external_id=item["id"],
                defaults={
                    "author_external_id": item["author"]["id"],
                    "author_name": item["author"]["name"],
                    "url": item["url"],
                    "text": item["text"],
                    "language": item["language"].split("-")[0],
                    "language_tag": item["language"],
                    "country": item["country"],
                    "published_at": item["published_at"],
                    "observed_at": metrics["observed_at"],
                    "shares": metrics["shares"],
                    "views": metrics["views"],
                    "comments": metrics["comments"],
                    "reactions": metrics["reactions"],
                    "reports_hate": metrics["reports_hate"],
                    "reports_violence": metrics["reports_violence"],
                },
            )
    return (time.perf_counter() - started) * 1000


def _validation_ms(items: list[dict]) -> tuple[float, float]:
    from factcheck.api.posts import IngestPostSerializer
    from factcheck.posts.services import clock_skew

    def plain():
        _, errors = validate_items(items, now=timezone.now(), clock_skew=clock_skew())
        assert not errors

    def drf():
        serializer = IngestPostSerializer(data=items, many=True)
        assert serializer.is_valid(), serializer.errors

    timings = {plain: [], drf: []}
    for _ in range(5):
        for function, runs in timings.items():
            started = time.perf_counter()
            function()
            runs.append((time.perf_counter() - started) * 1000)
    return statistics.median(timings[plain]), statistics.median(timings[drf])


def _cleanup(tag: str, client_name: str) -> None:
    Post.objects.filter(external_id__startswith=f"bench-{tag}-").delete()
    AuditEvent.objects.filter(actor_label=f"api:{client_name}").delete()
    ApiClient.objects.filter(name=client_name).delete()
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {SCRATCH_TABLE}")
        # Reclaim the rows just deleted, or the next run inserts into a bloated table
        # scattered with dead rows while COPY gets a fresh one.
        tables = [Post._meta.db_table, EngagementSnapshot._meta.db_table]
        cursor.execute(f"VACUUM (ANALYZE) {', '.join(map(connection.ops.quote_name, tables))}")
