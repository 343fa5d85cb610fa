import json

import pytest

from factcheck.ratings.services import rating_create
from tests.factories import PostFactory, make_token


def _rating(checker, verdict="false", **post_fields):
    post = PostFactory(
        external_id="1790001",
        url="https://social.example/p/1790001",
        author_name="Sam Poster",
        text="Breaking: the moon landing photos were <b>staged</b> in a studio " * 3,
        **post_fields,
    )
    return rating_create(
        post=post,
        partner=checker.memberships.get().partner,
        checker=checker,
        verdict=verdict,
        headline="The photos are authentic NASA images",
        summary="Every frame is in NASA's archive.",
        article_url="https://factcheck.example/moon" if verdict != "not_eligible" else "",
    )


def _get(client, rating, **headers):
    return client.get(f"/api/v1/ratings/{rating.pk}/claimreview", **headers)


@pytest.mark.django_db
def test_it_answers_schema_org_claimreview(client, alice):
    rating = _rating(alice, "false")
    token = make_token("demotions:read")
    response = _get(client, rating, HTTP_AUTHORIZATION=f"Bearer {token}")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/ld+json"
    doc = json.loads(response.content)
    assert doc["@context"] == "https://schema.org"
    assert doc["@type"] == "ClaimReview"
    assert doc["url"] == "https://factcheck.example/moon"
    assert doc["headline"] == "The photos are authentic NASA images"
    assert doc["datePublished"] == rating.created_at.date().isoformat()
    assert doc["claimReviewed"].startswith("Breaking: the moon landing photos were <b>staged</b>")
    assert b"<b>" not in response.content  # safe to paste into a <script> tag
    assert len(doc["claimReviewed"]) <= 280
    assert doc["reviewRating"] == {
        "@type": "Rating",
        "ratingValue": 1,
        "bestRating": 5,
        "worstRating": 1,
        "alternateName": "False",
    }
    assert doc["itemReviewed"]["@type"] == "Claim"
    assert doc["itemReviewed"]["author"] == {"@type": "Person", "name": "Sam Poster"}
    assert doc["itemReviewed"]["appearance"]["url"] == "https://social.example/p/1790001"
    assert doc["author"] == {"@type": "Organization", "name": "Partner A"}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("verdict", "value", "name"),
    [
        ("altered", 1, "Altered"),
        ("partly_false", 2, "Partly false"),
        ("missing_context", 3, "Missing context"),
        ("satire", 3, "Satire"),
        ("true", 5, "True"),
    ],
)
def test_it_maps_every_published_verdict_onto_1_to_5(client_for, alice, verdict, value, name):
    rating = _rating(alice, verdict)
    doc = json.loads(_get(client_for(alice), rating).content)
    assert (doc["reviewRating"]["ratingValue"], doc["reviewRating"]["alternateName"]) == (
        value,
        name,
    )


@pytest.mark.django_db
def test_it_does_not_publish_a_not_eligible_rating(client_for, alice):
    rating = _rating(alice, "not_eligible")
    response = _get(client_for(alice), rating)
    assert response.status_code == 404
    assert response.json() == {"detail": "No published rating with this id."}
    assert client_for(alice).get("/api/v1/ratings/999999/claimreview").status_code == 404


@pytest.mark.django_db
def test_it_lets_any_signed_in_user_or_token_read_and_nobody_else(client_for, alice, bob):
    rating = _rating(alice)
    assert _get(client_for(bob), rating).status_code == 200  # published: not partner-private
    ingest = make_token("ingest")
    assert _get(client_for(None), rating, HTTP_AUTHORIZATION=f"Bearer {ingest}").status_code == 200
    anonymous = _get(client_for(None), rating)
    assert anonymous.status_code == 401
    assert "detail" in anonymous.json()
