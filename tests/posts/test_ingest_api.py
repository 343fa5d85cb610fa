import json
from datetime import timedelta

import pytest
from django.utils import timezone

from factcheck.core.models import AuditEvent
from factcheck.posts.fingerprints import text_fingerprint
from factcheck.posts.models import EngagementSnapshot, Post
from tests.factories import make_token
from tests.posts.builders import iso, item

URL = "/api/v1/posts/ingest"


def _nothing_written():
    return Post.objects.count() == 0 and EngagementSnapshot.objects.count() == 0


# --- authentication ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_it_answers_401_without_a_token(client):
    response = client.post(URL, {"posts": [item()]}, content_type="application/json")
    assert response.status_code == 401
    assert response.json()["detail"]
    assert response["WWW-Authenticate"].startswith("Bearer")
    assert _nothing_written()


@pytest.mark.django_db
def test_it_answers_401_with_a_bad_token(ingest):
    response = ingest([item()], token="fc_not-a-real-token")
    assert response.status_code == 401
    assert response.json() == {"detail": "The token is not valid or has been revoked."}
    assert _nothing_written()


@pytest.mark.django_db
def test_it_answers_403_to_a_token_without_the_ingest_scope(ingest):
    response = ingest([item()], token=make_token("demotions:read", name="ranker"))
    assert response.status_code == 403
    assert response.json() == {"detail": "The token lacks the 'ingest' scope."}
    assert _nothing_written()


@pytest.mark.django_db
def test_it_answers_401_to_a_browser_session_without_a_token(client_for, ada):
    response = client_for(ada).post(URL, {"posts": [item()]}, content_type="application/json")
    assert response.status_code == 401
    assert _nothing_written()


# --- a valid batch ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_it_creates_posts_with_one_snapshot_each(ingest):
    first = item("p-1", text="Hello   WORLD", language="pt-br", country="br")
    response = ingest([first, item("p-2")])

    assert response.status_code == 200
    assert response.json() == {"created": 2, "updated": 0, "unchanged": 0}
    post = Post.objects.get(external_id="p-1")
    assert post.status == Post.Status.QUEUED
    assert post.author_external_id == "author-p-1"
    assert post.author_name == "Pat Poster"
    assert post.url == "https://social.example/p/p-1"
    assert post.text == "Hello   WORLD"
    assert (post.language, post.language_tag, post.country) == ("pt", "pt-BR", "BR")
    assert post.published_at.isoformat() == first["published_at"]
    assert post.observed_at.isoformat() == first["metrics"]["observed_at"]
    assert (post.shares, post.views, post.comments, post.reactions) == (10, 100, 1, 2)
    assert post.text_fingerprint == text_fingerprint("hello world")
    assert post.trending_score != 0
    snapshot = post.snapshots.get()
    assert (snapshot.shares, snapshot.views, snapshot.comments) == (10, 100, 1)
    assert EngagementSnapshot.objects.count() == 2


@pytest.mark.django_db
def test_it_answers_all_unchanged_when_the_same_batch_comes_twice(ingest):
    batch = [item(f"p-{n}") for n in range(5)]
    assert ingest(batch).json() == {"created": 5, "updated": 0, "unchanged": 0}
    posts_before = list(Post.objects.order_by("pk").values())

    response = ingest(batch)

    assert response.status_code == 200
    assert response.json() == {"created": 0, "updated": 0, "unchanged": 5}
    assert list(Post.objects.order_by("pk").values()) == posts_before
    assert EngagementSnapshot.objects.count() == 5


@pytest.mark.django_db
def test_it_counts_created_updated_and_unchanged(ingest):
    ingest([item("same"), item("grows"), item("edited")])

    response = ingest(
        [
            item("same"),
            item("grows", hours_ago=0.5, metrics={"shares": 50, "views": 900}),
            item("edited", text="Claim edited: the moon is made of chalk."),
            item("new"),
        ]
    )

    assert response.json() == {"created": 1, "updated": 2, "unchanged": 1}
    grows = Post.objects.get(external_id="grows")
    assert (grows.shares, grows.views) == (50, 900)
    assert grows.snapshots.count() == 2
    edited = Post.objects.get(external_id="edited")
    assert edited.text == "Claim edited: the moon is made of chalk."
    assert edited.text_fingerprint == text_fingerprint(edited.text)
    assert edited.snapshots.count() == 1


@pytest.mark.django_db
def test_it_keeps_the_status_of_a_post_already_rated(ingest):
    ingest([item("p-1")])
    Post.objects.filter(external_id="p-1").update(status=Post.Status.RATED)

    response = ingest([item("p-1", hours_ago=0.2, metrics={"shares": 99})])

    assert response.json()["updated"] == 1
    post = Post.objects.get(external_id="p-1")
    assert post.status == Post.Status.RATED
    assert post.shares == 99


@pytest.mark.django_db
def test_it_ignores_unknown_fields(ingest):
    post = item("p-1", mood="sunny", author={"id": "a-1", "name": "Al", "verified": True})
    post["metrics"]["saves"] = 12

    response = ingest([post])

    assert response.status_code == 200
    assert Post.objects.get().author_external_id == "a-1"


@pytest.mark.django_db
def test_it_accepts_optional_fields_left_out(ingest):
    post = item("p-1", url="", country=None)
    del post["metrics"]["comments"], post["metrics"]["reports_hate"], post["author"]["name"]

    response = ingest([post])

    assert response.status_code == 200
    stored = Post.objects.get()
    assert (stored.url, stored.country, stored.author_name, stored.comments) == ("", "", "", 0)


@pytest.mark.django_db
def test_it_answers_zero_counts_to_an_empty_batch(ingest):
    response = ingest([])
    assert response.status_code == 200
    assert response.json() == {"created": 0, "updated": 0, "unchanged": 0}


@pytest.mark.django_db
def test_it_stores_hostile_text_as_sent(ingest):
    text = "<script>alert(1)</script> <b>bold</b> {{ 7|add:1 }} \u202eevil"
    ingest([item("p-1", text=text)])
    assert Post.objects.get().text == text


# --- bad input: one clear 400 per item, nothing written ---------------------------------------


def _future(seconds):
    return iso(timezone.now() + timedelta(seconds=seconds))


def _later(function, *args):
    # Times are computed when the test runs, not at collection, which may be minutes before.
    return lambda: function(*args)


def _resolve(change: dict) -> dict:
    return {
        key: _resolve(value) if isinstance(value, dict) else value() if callable(value) else value
        for key, value in change.items()
    }


BAD_ITEMS = [
    # (what, change to a valid item, the field named in the error)
    ("NUL byte in text", {"text": "before\x00after"}, "text"),
    ("NUL byte in the author's name", {"author": {"id": "a", "name": "x\x00"}}, "author.name"),
    ("a lone surrogate in text", {"text": "broken \ud800 text"}, "text"),
    ("text not a string", {"text": 42}, "text"),
    ("text missing", {"text": None}, "text"),
    ("unknown language", {"language": "xx"}, "language"),
    ("language of three letters", {"language": "eng"}, "language"),
    ("language with a bad region", {"language": "pt-B"}, "language"),
    ("language missing", {"language": ""}, "language"),
    ("unknown country", {"country": "ZZ"}, "country"),
    ("country of three letters", {"country": "USA"}, "country"),
    ("negative shares", {"metrics": {"shares": -1}}, "metrics.shares"),
    ("negative views", {"metrics": {"views": -5}}, "metrics.views"),
    ("negative reports", {"metrics": {"reports_violence": -1}}, "metrics.reports_violence"),
    ("a fractional count", {"metrics": {"views": 1.5}}, "metrics.views"),
    ("a boolean count", {"metrics": {"comments": True}}, "metrics.comments"),
    ("a count as text", {"metrics": {"shares": "10"}}, "metrics.shares"),
    ("a count beyond bigint", {"metrics": {"shares": 2**63}}, "metrics.shares"),
    ("shares missing", {"metrics": {"shares": None}}, "metrics.shares"),
    (
        "observed_at in the future",
        {"metrics": {"observed_at": _later(_future, 600)}},
        "metrics.observed_at",
    ),
    ("observed_at not ISO 8601", {"metrics": {"observed_at": "yesterday"}}, "metrics.observed_at"),
    (
        "observed_at without a time zone",
        {"metrics": {"observed_at": "2025-05-01T10:00:00"}},
        "metrics.observed_at",
    ),
    ("observed_at as a number", {"metrics": {"observed_at": 1714557600}}, "metrics.observed_at"),
    (
        "observed_at before published_at",
        {"metrics": {"observed_at": _later(_future, -2 * 24 * 3600)}},
        "metrics.observed_at",
    ),
    ("published_at without a time zone", {"published_at": "2025-05-01"}, "published_at"),
    ("published_at in the future", {"published_at": _later(_future, 3600)}, "published_at"),
    ("published_at out of range", {"published_at": "0001-01-01T00:00:00+00:00"}, "published_at"),
    ("id with a slash", {"id": "a/b"}, "id"),
    ("id with a space", {"id": "a b"}, "id"),
    ("id too long", {"id": "x" * 129}, "id"),
    ("id empty", {"id": ""}, "id"),
    ("id a number", {"id": 12345}, "id"),
    ("id with non-ASCII letters", {"id": "café"}, "id"),
    ("author missing", {"author": None}, "author"),
    ("author not an object", {"author": "someone"}, "author"),
    ("author id bad", {"author": {"id": "<script>", "name": "x"}}, "author.id"),
    ("author name too long", {"author": {"id": "a", "name": "n" * 301}}, "author.name"),
    ("a javascript: url", {"url": "javascript:alert(1)"}, "url"),
    ("a url without host", {"url": "https://"}, "url"),
    ("metrics missing", {"metrics": None}, "metrics"),
    ("metrics a list", {"metrics": [1, 2]}, "metrics"),
]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("change", "field"),
    [pytest.param(change, field, id=what) for what, change, field in BAD_ITEMS],
)
def test_it_refuses_a_bad_item_with_a_clear_error(ingest, change, field):
    bad = item("bad", **_resolve(change))

    response = ingest([item("good-1"), bad, item("good-2")])

    assert response.status_code == 400
    body = response.json()
    assert body["detail"].endswith("nothing was written.")
    assert [(error["index"], error["field"]) for error in body["errors"]] == [(1, field)]
    assert body["errors"][0]["message"]
    assert _nothing_written()


@pytest.mark.django_db
def test_it_refuses_an_item_that_is_not_an_object(ingest):
    response = ingest([item("good"), "p-2", None])
    assert response.status_code == 400
    assert [(e["index"], e["field"]) for e in response.json()["errors"]] == [(1, ""), (2, "")]
    assert _nothing_written()


@pytest.mark.django_db
def test_it_lists_every_error_of_every_post_and_writes_nothing(ingest):
    response = ingest(
        [
            item("good-1"),
            item("bad-1", text="\x00", language="klingon", metrics={"shares": -3, "views": -4}),
            item("good-2"),
            item("bad/2", country="XX"),
        ]
    )

    assert response.status_code == 400
    body = response.json()
    assert body["detail"] == "7 errors in 2 posts; nothing was written."
    assert [(error["index"], error["field"]) for error in body["errors"]] == [
        (1, "text"),
        (1, "language"),
        (1, "metrics.shares"),
        (1, "metrics.views"),
        (3, "id"),
        (3, "author.id"),  # the builder derives it from the post id
        (3, "country"),
    ]
    assert _nothing_written()
    assert not AuditEvent.objects.filter(action="posts.ingest").exists()


@pytest.mark.django_db
def test_it_allows_observed_at_within_the_clock_skew(ingest, settings):
    settings.FACTCHECK_CLOCK_SKEW_SECONDS = 120
    assert ingest([item("p-1", metrics={"observed_at": _future(60)})]).status_code == 200
    response = ingest([item("p-2", metrics={"observed_at": _future(300)})])
    assert response.status_code == 400
    assert "120 seconds" in response.json()["errors"][0]["message"]


@pytest.mark.django_db
def test_it_normalises_language_tags(ingest):
    ingest(
        [
            item("a", language="ZH-hant-tw"),
            item("b", language="es-419"),
            item("c", language="EN"),
        ]
    )
    tags = dict(Post.objects.values_list("external_id", "language_tag"))
    languages = dict(Post.objects.values_list("external_id", "language"))
    assert tags == {"a": "zh-Hant-TW", "b": "es-419", "c": "en"}
    assert languages == {"a": "zh", "b": "es", "c": "en"}


# --- counts never go backwards ----------------------------------------------------------------


@pytest.mark.django_db
def test_it_refuses_counts_going_backwards_from_the_stored_snapshot(ingest):
    ingest([item("p-1", hours_ago=1, metrics={"shares": 40, "views": 400})])

    response = ingest(
        [item("p-2"), item("p-1", hours_ago=0.5, metrics={"shares": 39, "views": 500})]
    )

    assert response.status_code == 400
    errors = response.json()["errors"]
    assert [(error["index"], error["field"]) for error in errors] == [(1, "metrics.shares")]
    assert "Went backwards: 39 is less than the 40" in errors[0]["message"]
    post = Post.objects.get(external_id="p-1")
    assert (post.shares, post.views, post.snapshots.count()) == (40, 400, 1)
    assert not Post.objects.filter(external_id="p-2").exists()


@pytest.mark.django_db
def test_it_refuses_counts_going_backwards_within_a_batch(ingest):
    response = ingest(
        [
            item("p-1", hours_ago=0.5, metrics={"shares": 10, "views": 50}),
            item("p-1", hours_ago=1.0, metrics={"shares": 20, "views": 40}),
        ]
    )

    assert response.status_code == 400
    errors = response.json()["errors"]
    # The later observation (index 0) has fewer shares than the earlier one (index 1).
    assert [(error["index"], error["field"]) for error in errors] == [(0, "metrics.shares")]
    assert errors[0]["message"].endswith("in posts[1].")
    assert _nothing_written()


@pytest.mark.django_db
def test_it_takes_several_snapshots_of_one_post_in_a_batch(ingest):
    response = ingest(
        [
            item("p-1", hours_ago=0.5, metrics={"shares": 30, "views": 300}, text="newest"),
            item("p-1", hours_ago=2.0, metrics={"shares": 10, "views": 100}, text="oldest"),
            item("p-1", hours_ago=1.0, metrics={"shares": 20, "views": 200}, text="middle"),
        ]
    )

    assert response.json() == {"created": 1, "updated": 0, "unchanged": 0}
    post = Post.objects.get()
    assert (post.shares, post.text) == (30, "newest")
    assert list(post.snapshots.values_list("shares", flat=True)) == [10, 20, 30]


@pytest.mark.django_db
def test_it_refuses_two_different_snapshots_at_the_same_time_in_a_batch(ingest):
    first = item("p-1", metrics={"shares": 10})
    second = item("p-1", metrics={"shares": 11, "observed_at": first["metrics"]["observed_at"]})

    response = ingest([first, second])

    assert response.status_code == 400
    errors = response.json()["errors"]
    assert [(e["index"], e["field"]) for e in errors] == [(1, "metrics.observed_at")]
    assert errors[0]["message"].startswith("posts[0] has the same id and observed_at")
    assert _nothing_written()


@pytest.mark.django_db
def test_it_refuses_different_counts_for_a_stored_observed_at(ingest):
    first = item("p-1", metrics={"shares": 10})
    ingest([first])
    changed = json.loads(json.dumps(first))
    changed["metrics"]["shares"] = 12

    response = ingest([changed])

    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "metrics.observed_at"
    assert "already stored with different counts" in response.json()["errors"][0]["message"]
    assert Post.objects.get().shares == 10


@pytest.mark.django_db
def test_it_stores_a_late_snapshot_without_moving_the_latest_counts(ingest):
    ingest([item("p-1", hours_ago=2, metrics={"shares": 10, "views": 100})])
    ingest([item("p-1", hours_ago=0.5, metrics={"shares": 30, "views": 300})])

    response = ingest(
        [item("p-1", hours_ago=1, metrics={"shares": 20, "views": 200}, text="older text")]
    )

    assert response.json() == {"created": 0, "updated": 1, "unchanged": 0}
    post = Post.objects.get()
    assert (post.shares, post.views) == (30, 300)
    assert post.text != "older text"  # the newest observation's content stays
    assert list(post.snapshots.values_list("shares", flat=True)) == [10, 20, 30]


@pytest.mark.django_db
def test_it_refuses_a_late_snapshot_with_more_than_a_later_stored_one(ingest):
    ingest([item("p-1", hours_ago=2, metrics={"shares": 10, "views": 100})])
    ingest([item("p-1", hours_ago=0.5, metrics={"shares": 30, "views": 300})])

    response = ingest([item("p-1", hours_ago=1, metrics={"shares": 35, "views": 200})])

    assert response.status_code == 400
    errors = response.json()["errors"]
    assert [(e["index"], e["field"]) for e in errors] == [(0, "metrics.shares")]
    assert "35 is more than the 30" in errors[0]["message"]
    assert EngagementSnapshot.objects.count() == 2


# --- the envelope: 413 and 400 ----------------------------------------------------------------


@pytest.mark.django_db
def test_it_answers_413_to_more_than_1000_posts(ingest):
    response = ingest([item(f"p-{n}") for n in range(1001)])
    assert response.status_code == 413
    assert "at most 1,000 posts" in response.json()["detail"]
    assert _nothing_written()


@pytest.mark.django_db
def test_it_takes_exactly_1000_posts(ingest):
    response = ingest([item(f"p-{n}") for n in range(1000)])
    assert response.json() == {"created": 1000, "updated": 0, "unchanged": 0}
    assert EngagementSnapshot.objects.count() == 1000


@pytest.mark.django_db
def test_it_answers_413_to_a_body_over_10_mib(ingest):
    response = ingest(None, body={"posts": [item("p-1", text="x" * (10 * 1024 * 1024))]})
    assert response.status_code == 413
    assert "10 MiB" in response.json()["detail"]
    assert _nothing_written()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "body",
    ["{not json", "", '{"posts": [NaN]}', b"\xff\xfe\x00garbage", "[" * 100_000],
    ids=["truncated", "empty", "NaN", "binary", "nested too deep"],
)
def test_it_answers_400_to_a_body_that_is_not_json(client, ingest_token, body):
    response = client.post(
        URL, body, content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {ingest_token}"
    )
    assert response.status_code == 400
    assert response.json()["detail"].startswith("The body is not valid JSON")
    assert _nothing_written()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "body", [[item()], {"post": [item()]}, {"posts": {"id": "p-1"}}, '"posts"', "42"]
)
def test_it_answers_400_to_json_of_the_wrong_shape(ingest, body):
    response = ingest(None, body=body)
    assert response.status_code == 400
    assert '"posts"' in response.json()["detail"]
    assert "posts" in response.json()["fields"]
    assert _nothing_written()


# --- bulk statements, audit, signal -----------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("size", [10, 500])
def test_it_uses_the_same_queries_for_10_and_500_posts(
    ingest, ingest_token, size, django_assert_num_queries, on_postgres
):
    ingest([item("warm-up")])  # the token's last_used_at is written once a minute, not here
    # On PostgreSQL each of the two INSERTs reads a temporary staging table, made if missing
    # (one query each) and filled by COPY (which Django does not count).
    staging = 2 if on_postgres else 0
    batch = [item(f"p-{n}") for n in range(size)]
    # 1 token, 2 savepoint, 3 posts by external id, 4 upsert posts, 5 insert snapshots,
    # 6 audit event, 7 release savepoint
    with django_assert_num_queries(7 + staging):
        assert ingest(batch).status_code == 200
    grown = [item(f"p-{n}", hours_ago=0.5, metrics={"shares": 20}) for n in range(size)]
    with django_assert_num_queries(7 + staging):
        assert ingest(grown).json() == {"created": 0, "updated": size, "unchanged": 0}
    # A late snapshot for every post adds one query: their histories, all at once.
    late = [item(f"p-{n}", hours_ago=0.75, metrics={"shares": 15}) for n in range(size)]
    with django_assert_num_queries(8 + staging):
        assert ingest(late).json() == {"created": 0, "updated": size, "unchanged": 0}
    # 1 token, 2 savepoint, 3 posts, 4 release: nothing to write.
    with django_assert_num_queries(4):
        assert ingest(grown).json() == {"created": 0, "updated": 0, "unchanged": size}


@pytest.mark.django_db
def test_it_records_one_audit_event_per_batch(ingest):
    ingest([item("p-1"), item("p-2")])
    ingest([item("p-1"), item("p-2")])  # unchanged: no state change, no event

    event = AuditEvent.objects.get(action="posts.ingest")
    assert event.actor_label == "api:platform"
    assert event.after == {"created": 2, "updated": 0, "unchanged": 0, "snapshots": 2}


@pytest.mark.django_db
def test_it_sends_posts_ingested_on_commit_with_the_ids(ingest, django_capture_on_commit_callbacks):
    from factcheck.posts.signals import posts_ingested

    received = []

    def receiver(sender, post_ids, text_changed_ids, **kwargs):
        received.append((sorted(post_ids), sorted(text_changed_ids)))

    posts_ingested.connect(receiver)
    try:
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            ingest([item("a"), item("b"), item("c")])
        assert received == []  # nothing before the commit
        for callback in callbacks:
            callback()
        pk = dict(Post.objects.values_list("external_id", "pk"))
        assert received == [([pk["a"], pk["b"], pk["c"]], [pk["a"], pk["b"], pk["c"]])]

        received.clear()
        with django_capture_on_commit_callbacks(execute=True):
            ingest(
                [
                    item("a"),  # unchanged
                    item("b", hours_ago=0.5, metrics={"shares": 11}),  # new snapshot
                    item("c", text="A different claim."),  # text changed
                ]
            )
        assert received == [([pk["b"], pk["c"]], [pk["c"]])]

        received.clear()
        with django_capture_on_commit_callbacks(execute=True):
            ingest([item("a")])
        assert received == []  # nothing changed, nothing to tell
    finally:
        posts_ingested.disconnect(receiver)


@pytest.mark.django_db
def test_it_keeps_the_answer_when_a_receiver_fails(ingest, django_capture_on_commit_callbacks):
    from factcheck.posts.signals import posts_ingested

    def broken(**kwargs):
        raise RuntimeError("broker down")

    posts_ingested.connect(broken)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            response = ingest([item("a")])
    finally:
        posts_ingested.disconnect(broken)
    assert response.status_code == 200
    assert Post.objects.filter(external_id="a").exists()


@pytest.mark.django_db
def test_it_documents_the_endpoint_in_the_openapi_schema(client):
    response = client.get("/api/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    schema = json.loads(response.content)
    operation = schema["paths"]["/api/v1/posts/ingest"]["post"]
    assert set(operation["responses"]) >= {"200", "400", "401", "403", "413"}
    request_ref = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    request_schema = schema["components"]["schemas"][request_ref.rsplit("/", 1)[1]]
    assert request_schema["properties"]["posts"]["maxItems"] == 1000
    post_schema = schema["components"]["schemas"]["IngestPostRequest"]
    assert set(post_schema["properties"]) == {
        "id",
        "author",
        "url",
        "text",
        "language",
        "country",
        "published_at",
        "metrics",
    }
    error_schema = schema["components"]["schemas"]["IngestItemError"]
    assert set(error_schema["properties"]) == {"index", "field", "message"}


@pytest.mark.django_db
def test_it_deletes_a_posts_snapshots_with_it(ingest):
    # Snapshots have no database foreign key (see the model): the ORM's cascade keeps them tidy.
    ingest([item("p-1", hours_ago=2), item("p-1", hours_ago=1, metrics={"shares": 11})])
    ingest([item("p-2")])

    Post.objects.filter(external_id="p-1").delete()

    assert list(EngagementSnapshot.objects.values_list("post__external_id", flat=True)) == ["p-2"]
