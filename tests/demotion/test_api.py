import json

import pytest

from factcheck.demotion import services
from factcheck.demotion.models import DemotionChange
from factcheck.posts.models import Post
from tests.factories import PostFactory, make_token

LOOKUP = "/api/v1/demotions/lookup"
CHANGES = "/api/v1/demotions/changes"


def post_json(client, url, body, **extra):
    return client.post(url, json.dumps(body), content_type="application/json", **extra)


@pytest.fixture
def rated(rate, alice):
    """Three posts the ranker must hear about, one it need not."""
    false, partly, true, removed = (PostFactory(external_id=f"p{n}") for n in range(4))
    rate(false, alice, "false")
    rate(partly, alice, "partly_false")
    rate(true, alice, "true")
    Post.objects.filter(pk=removed.pk).update(status=Post.Status.REMOVED)
    services.demotion_apply(post_id=removed.pk)
    return false, partly, true, removed


@pytest.mark.django_db
def test_it_looks_up_demoted_and_removed_posts_in_one_query(
    ranker, rated, django_assert_num_queries
):
    post_json(ranker, LOOKUP, {"post_ids": ["warm-up"]})  # records the token's last use
    ids = ["p0", "p1", "p2", "p3", "never-seen", 12345]
    # 1: the bearer token (with its user); 2: the demotions of those ids.
    with django_assert_num_queries(2):
        response = post_json(ranker, LOOKUP, {"post_ids": ids})
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json() == {
        "demotions": {
            "p0": {"multiplier": 0.2, "label": "false", "removed": False},
            "p1": {"multiplier": 0.5, "label": "partly_false", "removed": False},
            "p3": {"multiplier": 0.0, "label": "", "removed": True},
        }
    }


@pytest.mark.django_db
def test_it_answers_an_empty_map_when_nothing_is_demoted(ranker, db):
    response = post_json(ranker, LOOKUP, {"post_ids": []})
    assert response.json() == {"demotions": {}}


@pytest.mark.django_db
def test_it_refuses_more_than_10000_ids_with_413(ranker, rated):
    response = post_json(ranker, LOOKUP, {"post_ids": [str(n) for n in range(10_001)]})
    assert response.status_code == 413
    assert response.json() == {
        "detail": "At most 10,000 post ids per lookup; this request has 10,001. Split it."
    }
    assert post_json(ranker, LOOKUP, {"post_ids": ["p0"] * 10_000}).status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({}, "This field is required."),
        ([], "This field is required."),
        ({"post_ids": "p0"}, "Expected a list of post ids."),
        ({"post_ids": ["p0", None]}, "Item 1 is not a post id"),
        ({"post_ids": ["p0", True]}, "Item 1 is not a post id"),
        ({"post_ids": [""]}, "Item 0 is not a post id"),
        ({"post_ids": ["x" * 129]}, "Item 0 is not a post id"),
    ],
)
def test_it_refuses_a_bad_shape_with_400(ranker, body, message):
    response = post_json(ranker, LOOKUP, body)
    assert response.status_code == 400
    data = response.json()
    assert data["detail"] == "Invalid input."
    assert data["fields"]["post_ids"][0].startswith(message)


@pytest.mark.django_db
def test_it_refuses_a_body_that_is_not_json(ranker):
    response = ranker.post(LOOKUP, "post_ids=p0", content_type="application/json")
    assert response.status_code == 400
    assert "JSON parse error" in response.json()["detail"]
    response = ranker.post(LOOKUP, {"post_ids": "p0"})  # a form, not JSON
    assert response.status_code == 415
    assert "detail" in response.json()


@pytest.mark.django_db
def test_it_needs_the_demotions_read_scope(client, alice):
    assert post_json(client, LOOKUP, {"post_ids": []}).status_code == 401
    ingest = make_token("ingest")
    response = post_json(client, LOOKUP, {"post_ids": []}, HTTP_AUTHORIZATION=f"Bearer {ingest}")
    assert response.status_code == 403
    assert response.json() == {"detail": "The token lacks the 'demotions:read' scope."}
    client.force_login(alice)
    assert post_json(client, LOOKUP, {"post_ids": []}).status_code == 403
    assert client.get(CHANGES).status_code == 403


# --- the change feed ------------------------------------------------------------------------


@pytest.mark.django_db
def test_it_pages_through_the_changes_in_sequence_order(ranker, rate, alice, rated):
    false = rated[0]
    rate(false, alice, "true")  # the ranker must learn it is no longer demoted
    response = ranker.get(CHANGES, {"after": 0, "limit": 2})
    assert response.status_code == 200
    page = response.json()
    assert [change["post_id"] for change in page["changes"]] == ["p0", "p1"]
    first = page["changes"][0]
    assert set(first) == {"seq", "post_id", "multiplier", "label", "removed", "at"}
    assert (first["multiplier"], first["label"], first["removed"]) == (0.2, "false", False)
    assert page["next"] == page["changes"][-1]["seq"]

    rest = ranker.get(CHANGES, {"after": page["next"]}).json()
    assert [(c["post_id"], c["multiplier"], c["label"]) for c in rest["changes"]] == [
        ("p3", 0.0, ""),
        ("p0", 1.0, ""),
    ]
    seqs = [c["seq"] for c in page["changes"] + rest["changes"]]
    assert seqs == sorted(seqs) and len(set(seqs)) == 4

    done = ranker.get(CHANGES, {"after": rest["next"]}).json()
    assert done == {"changes": [], "next": rest["next"]}


@pytest.mark.django_db
def test_it_lists_changes_in_two_queries(ranker, rated, django_assert_num_queries):
    ranker.get(CHANGES)  # records the token's last use
    # 1: the bearer token (with its user); 2: the page of changes.
    with django_assert_num_queries(2):
        response = ranker.get(CHANGES, {"limit": 10_000})
    assert len(response.json()["changes"]) == DemotionChange.objects.count() == 3


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"after": "-1"}, "after"),
        ({"after": "abc"}, "after"),
        ({"after": str(2**64)}, "after"),
        ({"limit": "0"}, "limit"),
        ({"limit": "10001"}, "limit"),
    ],
)
def test_it_refuses_bad_paging_with_400(ranker, query, field):
    response = ranker.get(CHANGES, query)
    assert response.status_code == 400
    assert field in response.json()["fields"]


@pytest.mark.django_db
def test_it_names_the_endpoints_in_the_openapi_schema(client, ada):
    client.force_login(ada)
    schema = client.get("/api/schema/", {"format": "json"}).json()
    assert {"/api/v1/demotions/lookup", "/api/v1/demotions/changes"} <= set(schema["paths"])
    assert "/api/v1/ratings/{rating_id}/claimreview" in schema["paths"]
