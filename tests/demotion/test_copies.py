"""Exact copies (DESIGN §5.4): an unrated post with the text fingerprint of a rated post inherits
its verdict, in its own author's transaction, without a strike and without a removal."""

import json
from unittest import mock

import pytest
from django.utils import timezone
from kombu.exceptions import OperationalError

from factcheck.demotion import selectors, services, tasks
from factcheck.demotion.models import AuthorStanding, Demotion, DemotionChange
from factcheck.posts.fingerprints import text_fingerprint
from factcheck.posts.models import Post
from factcheck.ratings.models import Rating
from tests.factories import PostFactory, make_token
from tests.posts.builders import item

TEXT = "Drinking bleach cures the flu, doctors hate this trick"
LOOKUP = "/api/v1/demotions/lookup"
CHANGES = "/api/v1/demotions/changes"
INGEST = "/api/v1/posts/ingest"


def post_with(text=TEXT, **fields):
    """A post whose fingerprint is computed as ingest computes it."""
    return PostFactory(text=text, text_fingerprint=text_fingerprint(text), **fields)


def values(post):
    row = Demotion.objects.filter(post=post).first()
    if row is None:
        return None
    return (row.multiplier, row.label, row.removed, row.reasons)


def propagated(source):
    return f"Propagated from post {source.external_id} (exact copy)"


def snapshot():
    return (
        list(
            Demotion.objects.order_by("post_id").values_list(
                "post_id", "multiplier", "label", "removed", "reasons", "copy_of", "version"
            )
        ),
        list(DemotionChange.objects.values_list("seq", "external_id", "multiplier", "label")),
        list(AuthorStanding.objects.values_list("author_external_id", "strikes", "multiplier")),
    )


@pytest.fixture
def ingest(client, django_capture_on_commit_callbacks):
    """``ingest([item, …])`` through the API, with the on-commit signal and its (eager) tasks."""
    token = make_token("ingest", name="platform")

    def send(posts):
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(
                INGEST,
                json.dumps({"posts": posts}),
                content_type="application/json",
                HTTP_AUTHORIZATION=f"Bearer {token}",
            )
        assert response.status_code == 200, response.content
        return response

    return send


# --- inheriting ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_it_demotes_a_copy_ingested_after_the_rating(rate, alice, ingest):
    source = post_with(external_id="original")
    rate(source, alice, "false")
    # Another author, different case and spacing: the same normalised text.
    ingest([item("copy-1", text="  drinking BLEACH cures the flu,\ndoctors hate this trick ")])
    copy = Post.objects.get(external_id="copy-1")
    assert values(copy) == (0.2, "false", False, [propagated(source)])


@pytest.mark.django_db
def test_it_demotes_copies_that_existed_before_the_rating(rate, alice):
    source = post_with(external_id="original")
    copies = [post_with() for _ in range(3)]
    other = post_with(text="Drinking water helps with the flu")
    rate(source, alice, "false")
    for copy in copies:
        assert values(copy) == (0.2, "false", False, [propagated(source)])
        assert Demotion.objects.get(post=copy).copy_of_id == source.pk
    assert values(other) is None
    assert Demotion.objects.get(post=source).copies_due_at is None  # handed over


@pytest.mark.django_db
def test_it_follows_a_revision_to_a_milder_verdict(rate, alice):
    source, copy = post_with(external_id="original"), post_with()
    rate(source, alice, "false")
    rate(source, alice, "partly_false")
    assert values(copy) == (0.5, "partly_false", False, [propagated(source)])
    rate(source, alice, "true")
    assert values(copy) == (1.0, "", False, [propagated(source)])
    # The ranker was told each step, and finally that the copy is back to full reach.
    changes = DemotionChange.objects.filter(post=copy).values_list("multiplier", "label")
    assert list(changes) == [(0.2, "false"), (0.5, "partly_false"), (1.0, "")]


@pytest.mark.django_db
def test_it_inherits_the_most_severe_verdict_among_rated_copies(rate, alice, bob):
    partly, false = post_with(external_id="first"), post_with(external_id="second")
    copy = post_with()
    rate(partly, alice, "partly_false")
    assert values(copy) == (0.5, "partly_false", False, [propagated(partly)])
    rate(false, bob, "false")
    assert values(copy) == (0.2, "false", False, [propagated(false)])
    rate(false, bob, "true")  # the other rated post's verdict counts again
    assert values(copy) == (0.5, "partly_false", False, [propagated(partly)])


@pytest.mark.django_db
def test_it_keeps_a_copys_own_rating(rate, alice, bob):
    source, copy = post_with(external_id="original"), post_with(external_id="looked-at")
    rate(copy, bob, "missing_context")
    rate(source, alice, "false")
    assert values(copy) == (1.0, "missing_context", False, ["Rated Missing context by Partner B"])
    assert values(source)[0] == 0.2


@pytest.mark.django_db
def test_it_drops_the_inheritance_when_the_copy_is_rated_itself(rate, alice, bob):
    source, copy = post_with(external_id="original"), post_with()
    rate(source, alice, "false")
    rate(copy, bob, "satire")
    assert values(copy) == (1.0, "satire", False, ["Rated Satire by Partner B"])
    assert Demotion.objects.get(post=copy).copy_of_id is None


@pytest.mark.django_db
def test_it_multiplies_by_the_copys_own_author_penalty(rate, alice):
    for text in ("one", "two", "three"):
        rate(post_with(text=f"Claim {text}", author_external_id="repeat"), alice, "false")
    assert AuthorStanding.objects.get(author_external_id="repeat").multiplier == 0.5
    source = post_with(external_id="original")
    copy = post_with(author_external_id="repeat")
    rate(source, alice, "partly_false")
    row = Demotion.objects.get(post=copy)
    assert (row.multiplier, row.post_multiplier, row.author_multiplier) == (0.25, 0.5, 0.5)
    assert propagated(source) in row.reasons
    # The source's author is not penalised, so the source keeps ×0.5.
    assert values(source)[0] == 0.5


# --- what is not propagated ---------------------------------------------------------------------


@pytest.mark.django_db
def test_it_gives_the_copys_author_no_strike(rate, alice):
    copies = []
    for n in range(3):
        source = post_with(text=f"Claim {n}", author_external_id=f"liar-{n}")
        copies.append(post_with(text=f"Claim {n}", author_external_id="sharer"))
        rate(source, alice, "false")
    assert [values(copy)[0] for copy in copies] == [0.2, 0.2, 0.2]
    assert Demotion.objects.filter(post__in=copies, strike_at__isnull=False).count() == 0
    standing = AuthorStanding.objects.filter(author_external_id="sharer").first()
    assert standing is None or (standing.strikes, standing.multiplier) == (0, 1.0)
    # A fourth post of the sharer, not a copy, keeps full reach.
    assert values(post_with(text="Nice weather", author_external_id="sharer")) is None


@pytest.mark.django_db
def test_it_does_not_propagate_a_removal(rate, alice):
    source, copy = post_with(external_id="original"), post_with()
    rate(source, alice, "false")
    Post.objects.filter(pk=source.pk).update(status=Post.Status.REMOVED)
    services.demotion_apply(post_id=source.pk)
    tasks.demotion_apply_copies.delay(source.pk)
    assert values(source)[:3] == (0.0, "false", True)
    assert values(copy) == (0.2, "false", False, [propagated(source)])


@pytest.mark.django_db
def test_it_propagates_nothing_between_posts_without_text(rate, alice, ingest):
    source = post_with(text="", external_id="image-only")
    blank = post_with(text="   ")
    unfingerprinted = PostFactory(text_fingerprint="")  # stored before fingerprints existed
    rate(source, alice, "false")
    ingest([item("another-image", text="")])
    assert values(source)[0] == 0.2
    for post in (blank, unfingerprinted, Post.objects.get(external_id="another-image")):
        assert values(post) is None
    assert selectors.copies_missing_verdict() == []


# --- text changes -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_it_takes_the_verdict_back_when_a_copys_text_changes(rate, alice, ingest):
    source = post_with(external_id="original")
    rate(source, alice, "false")
    ingest([item("copy-1", text=TEXT)])
    ingest([item("copy-1", text="I changed my mind, bleach is poison", hours_ago=0.5)])
    copy = Post.objects.get(external_id="copy-1")
    assert values(copy) == (1.0, "", False, [])
    assert not selectors.demotions_lookup(external_ids=["copy-1"])


@pytest.mark.django_db
def test_it_moves_the_verdict_when_a_rated_posts_text_changes(rate, alice, ingest):
    ingest([item("original", text=TEXT), item("old-copy", text=TEXT)])
    source = Post.objects.get(external_id="original")
    rate(source, alice, "false")
    assert values(Post.objects.get(external_id="old-copy"))[0] == 0.2
    new_text = "Drinking bleach cures covid"
    ingest([item("new-copy", text=new_text)])
    ingest([item("original", text=new_text, hours_ago=0.5)])
    assert values(Post.objects.get(external_id="new-copy"))[0] == 0.2
    assert values(Post.objects.get(external_id="old-copy"))[:3] == (1.0, "", False)


# --- lookup, idempotency, the reconciler --------------------------------------------------------


@pytest.mark.django_db
def test_it_answers_the_copy_in_the_ranker_lookup(rate, alice, ranker, django_assert_num_queries):
    source = post_with(external_id="original")
    copy = post_with(external_id="copy-1")
    rate(source, alice, "false")
    body = json.dumps({"post_ids": ["original", "copy-1"]})
    ranker.post(LOOKUP, body, content_type="application/json")  # records the token's last use
    # 1: the bearer token (with its user); 2: the demotions of those ids.
    with django_assert_num_queries(2):
        response = ranker.post(LOOKUP, body, content_type="application/json")
    assert response.json() == {
        "demotions": {
            "original": {"multiplier": 0.2, "label": "false", "removed": False},
            "copy-1": {"multiplier": 0.2, "label": "false", "removed": False},
        }
    }
    change = ranker.get(CHANGES, {"after": 0}).json()["changes"][-1]
    assert (change["post_id"], change["multiplier"]) == (copy.external_id, 0.2)


@pytest.mark.django_db
def test_it_changes_nothing_when_each_task_runs_twice(rate, alice, ingest):
    source = post_with(external_id="original")
    copy = post_with(author_external_id="sharer")
    rate(source, alice, "false")
    ingest([item("copy-2", text=TEXT)])
    first = snapshot()
    assert len(first[1]) == 3  # one change per post, no duplicate
    ids = list(Post.objects.values_list("pk", flat=True))
    for _ in range(2):
        tasks.demotion_apply.delay(copy.pk)
        tasks.demotion_apply.delay(source.pk)
        tasks.demotion_apply_batch.delay(ids)
        tasks.demotion_apply_copies.delay(source.pk)
        tasks.demotion_apply_new_posts.delay(ids)
        tasks.demotion_reconcile.delay()
        assert snapshot() == first
    assert Demotion.objects.filter(copies_due_at__isnull=False).count() == 0


@pytest.mark.django_db
def test_it_reconciles_a_copy_ingested_while_the_broker_was_down(rate, alice, ingest, caplog):
    source = post_with(external_id="original")
    rate(source, alice, "false")
    broker_down = OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
    with mock.patch.object(tasks.demotion_apply_new_posts, "apply_async", side_effect=broker_down):
        ingest([item("copy-1", text=TEXT)])
    assert "the reconciler will" in caplog.text
    copy = Post.objects.get(external_id="copy-1")
    assert values(copy) is None
    assert selectors.copies_missing_verdict() == [copy.pk]
    assert tasks.demotion_reconcile.delay().get() == 1
    assert values(copy) == (0.2, "false", False, [propagated(source)])
    assert tasks.demotion_reconcile.delay().get() == 0


@pytest.mark.django_db
def test_it_reconciles_copies_whose_enqueue_was_lost(rate, alice, caplog):
    source, copy = post_with(external_id="original"), post_with()
    rate(source, alice, "false")
    broker_down = OperationalError("Connection refused.")
    with mock.patch.object(tasks.demotion_apply_copies, "apply_async", side_effect=broker_down):
        rate(source, alice, "partly_false")
    assert "copies of post" in caplog.text
    assert values(source)[0] == 0.5
    assert values(copy)[0] == 0.2  # stale: its re-apply never reached the broker
    due = Demotion.objects.get(post=source).copies_due_at
    assert due is not None
    assert selectors.posts_with_copies_due() == []  # its own task may still be on the way
    later = timezone.now() + selectors.reconcile_after()
    assert selectors.posts_with_copies_due(now=later) == [source.pk]

    Demotion.objects.filter(post=source).update(copies_due_at=due - selectors.reconcile_after())
    assert tasks.demotion_reconcile.delay().get() == 1
    assert values(copy) == (0.5, "partly_false", False, [propagated(source)])
    assert Demotion.objects.get(post=source).copies_due_at is None
    assert tasks.demotion_reconcile.delay().get() == 0


@pytest.mark.django_db
def test_it_rebuilds_the_lookup_from_the_feed_with_copies(rate, alice, bob, ranker):
    source, copies = post_with(external_id="original"), [post_with() for _ in range(2)]
    rate(source, alice, "false")
    rate(copies[1], bob, "true")
    rate(source, alice, "altered")
    rate(source, alice, "missing_context")
    neutral = {"multiplier": 1.0, "label": "", "removed": False}
    cache, after = {}, 0
    while page := ranker.get(CHANGES, {"after": after, "limit": 2}).json()["changes"]:
        for change in page:
            entry = {key: change[key] for key in ("multiplier", "label", "removed")}
            if entry == neutral:
                cache.pop(change["post_id"], None)
            else:
                cache[change["post_id"]] = entry
            after = change["seq"]
    ids = ["original"] + [copy.external_id for copy in copies]
    looked_up = ranker.post(
        LOOKUP, json.dumps({"post_ids": ids}), content_type="application/json"
    ).json()["demotions"]
    assert cache == looked_up
    assert looked_up[copies[0].external_id]["label"] == "missing_context"
    assert copies[1].external_id not in looked_up  # its own "true" rating
    assert Rating.objects.filter(demotion_applied_at__isnull=True).count() == 0
