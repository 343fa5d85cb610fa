from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from factcheck.posts.models import Post
from factcheck.review.models import Claim, Skip
from tests.factories import PostFactory, make_token
from tests.review.factories import ClaimFactory

pytestmark = pytest.mark.django_db

QUEUE = "/api/v1/queue/"
CLAIM = "/api/v1/queue/claim"


def api(user=None, *scopes):
    """An API client with a personal token of ``user`` (or a service token of ``scopes``)."""
    client = APIClient()
    token = make_token("checker", user=user) if user is not None else make_token(*scopes)
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client


def test_it_lists_the_queue_in_the_post_shape(alice):
    published = timezone.now() - timedelta(hours=2)
    PostFactory(
        external_id="tw:1",
        text="<b>Hostile</b>",
        url="https://social.example/p/1",
        author_external_id="u1",
        author_name="Una",
        language="pt",
        language_tag="pt-BR",
        country="BR",
        published_at=published,
        shares=12,
        views=340,
        trending_score=9.5,
    )
    alice.memberships.get().partner.__class__.objects.filter(name="Partner A").update(
        languages=["en", "pt"]
    )
    PostFactory(trending_score=1, external_id="en-1")
    PostFactory(language="es")

    response = api(alice).get(QUEUE)

    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 2
    assert [post["id"] for post in body["results"]] == ["tw:1", "en-1"]
    assert body["results"][0] == {
        "id": "tw:1",
        "text": "<b>Hostile</b>",
        "url": "https://social.example/p/1",
        "author": {"id": "u1", "name": "Una"},
        "language": "pt-BR",
        "country": "BR",
        "published_at": published.isoformat().replace("+00:00", "Z"),
        "shares": 12,
        "views": 340,
        "trending_score": 9.5,
    }


def test_it_pages_the_queue(alice):
    PostFactory.create_batch(5)
    body = api(alice).get(QUEUE, {"page_size": 2, "page": 2}).json()
    assert body["count"] == 5
    assert len(body["results"]) == 2
    assert body["next"].endswith("page=3&page_size=2")
    assert body["previous"] is not None


@pytest.mark.parametrize("queued", [10, 1000])
def test_it_lists_the_queue_in_a_fixed_number_of_queries(queued, alice, django_assert_num_queries):
    Post.objects.bulk_create(
        Post(
            external_id=f"bulk-{i}",
            author_external_id=f"a{i}",
            language="en",
            published_at=timezone.now(),
            trending_score=i,
        )
        for i in range(queued)
    )
    client = api(alice)
    client.get(QUEUE)  # the token's last-used time is written once a minute, not per call
    # token with its user, membership with partner, count, page.
    with django_assert_num_queries(4):
        response = client.get(QUEUE)
    assert len(response.json()["results"]) == min(queued, 50)


def test_it_refuses_without_a_token_or_with_a_service_token(alice):
    assert APIClient().get(QUEUE).status_code in (401, 403)
    response = api(None, "ingest").get(QUEUE)
    assert response.status_code == 403
    assert "checker" in response.json()["detail"]


def test_it_refuses_a_personal_token_of_someone_without_a_partner(moe):
    response = api(moe).get(QUEUE)
    assert response.status_code == 403
    assert response.json() == {"detail": "Only fact-checkers of a partner can do this."}


def test_session_auth_works_too(alice, client_for):
    PostFactory()
    assert client_for(alice).get(QUEUE).json()["count"] == 1


def test_claim_answers_the_claim_and_the_post(alice):
    PostFactory(external_id="top", trending_score=10, text="Claimed text")
    response = api(alice).post(CLAIM)
    assert response.status_code == 201
    body = response.json()
    claim = Claim.objects.get()
    assert body["claim"]["id"] == claim.pk
    assert body["claim"]["expires_at"] == claim.expires_at.isoformat().replace("+00:00", "Z")
    assert body["post"]["id"] == "top"
    assert body["post"]["text"] == "Claimed text"
    assert set(body["post"]) == {
        "id",
        "text",
        "url",
        "author",
        "language",
        "country",
        "published_at",
        "shares",
        "views",
        "trending_score",
    }


def test_claim_answers_204_when_nothing_is_eligible(alice):
    response = api(alice).post(CLAIM)
    assert response.status_code == 204
    assert response.content == b""


def test_claim_answers_409_at_the_limit(alice, settings):
    settings.FACTCHECK_MAX_CLAIMS = 1
    PostFactory.create_batch(2)
    client = api(alice)
    assert client.post(CLAIM).status_code == 201
    response = client.post(CLAIM)
    assert response.status_code == 409
    assert "already hold 1 claims" in response.json()["detail"]


def test_claim_answers_403_when_the_partner_cannot_act(alice, partner_a):
    PostFactory()
    partner_a.status = partner_a.Status.SUSPENDED
    partner_a.save()
    response = api(alice).post(CLAIM)
    assert response.status_code == 403
    assert "suspended" in response.json()["detail"]
    assert not Claim.objects.exists()


def test_release_through_the_api(alice, partner_a):
    claim = ClaimFactory(checker=alice, partner=partner_a)
    response = api(alice).post(f"/api/v1/claims/{claim.pk}/release")
    assert response.status_code == 200
    assert response.json()["state"] == "released"
    assert response.json()["post_id"] == claim.post.external_id
    assert Post.objects.get(pk=claim.post_id).status == Post.Status.QUEUED
    again = api(alice).post(f"/api/v1/claims/{claim.pk}/release")
    assert again.status_code == 409


def test_another_users_claim_is_a_404(alice, anna, bob, partner_a):
    claim = ClaimFactory(checker=alice, partner=partner_a)
    for user in (anna, bob):
        for action in ("release", "skip"):
            response = api(user).post(
                f"/api/v1/claims/{claim.pk}/{action}", {"reason": "other"}, format="json"
            )
            assert response.status_code == 404
            assert response.json() == {"detail": "No such claim."}
    claim.refresh_from_db()
    assert claim.state == Claim.State.ACTIVE


def test_skip_through_the_api(alice, partner_a):
    claim = ClaimFactory(checker=alice, partner=partner_a)
    response = api(alice).post(
        f"/api/v1/claims/{claim.pk}/skip",
        {"reason": "conflict_of_interest", "note": "We wrote about it"},
        format="json",
    )
    assert response.status_code == 200
    assert response.json()["state"] == "skipped"
    skip = Skip.objects.get()
    assert (skip.reason, skip.note, skip.partner) == (
        "conflict_of_interest",
        "We wrote about it",
        partner_a,
    )


def test_skip_with_a_bad_reason_is_a_400_with_fields(alice, partner_a):
    claim = ClaimFactory(checker=alice, partner=partner_a)
    response = api(alice).post(
        f"/api/v1/claims/{claim.pk}/skip", {"reason": "bored"}, format="json"
    )
    assert response.status_code == 400
    body = response.json()
    assert body["detail"] == "Invalid input."
    assert list(body["fields"]) == ["reason"]
    claim.refresh_from_db()
    assert claim.state == Claim.State.ACTIVE


def test_the_schema_names_the_review_endpoints(client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    for path in [
        "/api/v1/queue/",
        "/api/v1/queue/claim",
        "/api/v1/claims/{claim_id}/release",
        "/api/v1/claims/{claim_id}/skip",
    ]:
        assert path in schema["paths"]
    claim = schema["paths"]["/api/v1/queue/claim"]["post"]["responses"]
    assert {"201", "204", "403", "409"} <= set(claim)
