"""Ranker lookup (issue 4): 1,000 post ids through POST /api/v1/demotions/lookup, with a real
``demotions:read`` token, in process through Django's test client (no network: the figure is
the endpoint's own cost — middleware, token check, JSON parsing, the query, the encoding),
over a demotion table of ~100,000 rows.

Baseline, from the same run on the same ids: the bare ``external_id = ANY(%s)`` query on a
cursor plus ``json.dumps`` of the same answer. Target: endpoint p50 ≤ 2× baseline p50. The two
alternate over ``ctx.n(400)`` requests, each with a fresh random mix of 700 demoted and 300
unknown ids. Everything written is deleted at the end.
"""

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

from factcheck.demotion.models import Demotion
from factcheck.ops.benchmarks import Context, Figure, p95
from factcheck.partners.models import ApiClient
from factcheck.partners.services import api_client_create
from factcheck.posts.models import Post

IDS_PER_LOOKUP = 1000
KNOWN_SHARE = 0.7
CHUNK = 5000
URL = "/api/v1/demotions/lookup"
SQL = (
    "SELECT external_id, multiplier, label, removed FROM demotion_demotion "
    "WHERE external_id = ANY(%s) AND (multiplier < 1 OR label <> '' OR removed)"
)


def run(ctx: Context) -> list[Figure]:
    rows = ctx.n(100_000, minimum=5_000)
    requests = ctx.n(400, minimum=40)
    tag = uuid.uuid4().hex[:8]
    prefix = f"bench-lk-{tag}-"
    client_name = f"benchmark ranker {tag}"
    _, token = api_client_create(
        name=client_name, scopes=["demotions:read"], actor="system:benchmark"
    )
    try:
        ctx.progress(f"lookup: writing {rows:,} posts and demotions")
        _seed(prefix, rows)
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE demotion_demotion")
        # DEBUG would keep every query in memory, a cost production does not pay.
        with override_settings(DEBUG=False):
            return _measure(ctx, prefix, rows, requests, token)
    finally:
        ctx.progress("lookup: cleaning up")
        # Plain deletes: the ORM would load 100,000 posts to cascade. Nothing else points at
        # these posts (they never went through ingest, review or moderation).
        with connection.cursor() as cursor:
            cursor.execute(
                "DELETE FROM demotion_demotion WHERE external_id LIKE %s", [f"{prefix}%"]
            )
            cursor.execute("DELETE FROM posts_post WHERE external_id LIKE %s", [f"{prefix}%"])
        ApiClient.objects.filter(name=client_name).delete()


def _seed(prefix: str, rows: int) -> None:
    now = timezone.now()
    rng = random.Random(4)
    for start in range(0, rows, CHUNK):
        with transaction.atomic():
            posts = Post.objects.bulk_create(
                Post(
                    external_id=f"{prefix}{n}",
                    author_external_id=f"{prefix}author-{n % 20_000}",
                    language="en",
                    published_at=now - timedelta(hours=3),
                    status=Post.Status.RATED,
                )
                for n in range(start, min(rows, start + CHUNK))
            )
            demotions = []
            for post in posts:
                roll = rng.random()
                # Most rows demote; some only label; a few were rated true (not listed).
                if roll < 0.75:
                    values = (0.2, "false", "false", False)
                elif roll < 0.85:
                    values = (0.5, "partly_false", "partly_false", False)
                elif roll < 0.93:
                    values = (1.0, "missing_context", "missing_context", False)
                elif roll < 0.95:
                    values = (0.0, "", "", True)
                else:
                    values = (1.0, "", "true", False)
                multiplier, label, verdict, removed = values
                demotions.append(
                    Demotion(
                        post=post,
                        external_id=post.external_id,
                        author_external_id=post.author_external_id,
                        multiplier=multiplier,
                        post_multiplier=multiplier,
                        label=label,
                        verdict=verdict,
                        removed=removed,
                        reasons=[f"Rated {verdict} by Benchmark Partner"],
                        effective_from=now,
                        updated_at=now,
                    )
                )
            Demotion.objects.bulk_create(demotions)


def _baseline(ids: list[str]) -> bytes:
    with connection.cursor() as cursor:
        cursor.execute(SQL, [ids])
        found = cursor.fetchall()
    demotions = {
        eid: {"multiplier": multiplier, "label": label, "removed": removed}
        for eid, multiplier, label, removed in found
    }
    return json.dumps({"demotions": demotions}, separators=(",", ":")).encode()


def _measure(ctx: Context, prefix: str, rows: int, requests: int, token: str) -> list[Figure]:
    client = Client(HTTP_AUTHORIZATION=f"Bearer {token}")
    rng = random.Random(7)
    known = int(IDS_PER_LOOKUP * KNOWN_SHARE)

    def sample() -> list[str]:
        ids = [f"{prefix}{n}" for n in rng.sample(range(rows), known)]
        ids += [f"{prefix}unknown-{rng.randrange(10**9)}" for _ in range(IDS_PER_LOOKUP - known)]
        rng.shuffle(ids)
        return ids

    for _ in range(10):  # warm the connection, the plan cache and the token
        ids = sample()
        client.post(URL, json.dumps({"post_ids": ids}), content_type="application/json")
        _baseline(ids)

    ctx.progress(f"lookup: {requests} lookups of {IDS_PER_LOOKUP:,} ids, endpoint vs bare query")
    endpoint_ms, baseline_ms, listed = [], [], []
    for n in range(requests):
        ids = sample()
        body = json.dumps({"post_ids": ids})
        # Alternate which goes first, so neither always gets the warmer cache.
        for which in ("endpoint", "baseline") if n % 2 else ("baseline", "endpoint"):
            start = time.perf_counter()
            if which == "endpoint":
                response = client.post(URL, body, content_type="application/json")
                elapsed = time.perf_counter() - start
                assert response.status_code == 200, response.content[:300]
                listed.append(len(json.loads(response.content)["demotions"]))
                endpoint_ms.append(elapsed * 1000)
            else:
                answer = _baseline(ids)
                baseline_ms.append((time.perf_counter() - start) * 1000)
                assert answer
    endpoint_p50 = statistics.median(endpoint_ms)
    baseline_p50 = statistics.median(baseline_ms)
    ratio = endpoint_p50 / baseline_p50
    return [
        Figure(
            name=f"lookup {IDS_PER_LOOKUP:,} ids p50",
            value=round(endpoint_p50, 3),
            unit="ms",
            baseline_name="= ANY query + json.dumps p50",
            baseline=round(baseline_p50, 3),
            ratio=round(ratio, 2),
            target="p50 ≤ 2× baseline",
            met=ratio <= 2.0,
            extra={
                "table_rows": rows,
                "requests": requests,
                "endpoint_p95_ms": round(p95(endpoint_ms), 3),
                "baseline_p95_ms": round(p95(baseline_ms), 3),
                "ids_answered_median": statistics.median(listed),
            },
        )
    ]
