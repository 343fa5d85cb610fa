import pytest
from django.contrib.auth.models import Group

from factcheck.moderation import services
from factcheck.moderation.models import Escalation, EscalationSignal, Removal, Tier
from factcheck.posts.models import Post
from tests.factories import EscalationFactory, PostFactory, UserFactory, make_token

pytestmark = pytest.mark.django_db


@pytest.fixture
def mia(db):
    user = UserFactory(email="mia@example.com", name="Mia")
    user.groups.add(Group.objects.get_or_create(name="moderators")[0])
    return user


@pytest.fixture
def moe_token(moe):
    return make_token("checker", user=moe, name="moe's token")


def _post(client, url, body, token=None):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    return client.post(url, body, content_type="application/json", **headers)


def _decision(escalation, **body):
    return {
        "action": "remove",
        "policy_code": "violence.call_to_action",
        "note": "Calls for an attack on Friday.",
        "context_flags": ["imminent_harm"],
        "version": escalation.version,
    } | body


def test_it_decides_with_a_moderators_personal_token(client, moe_token, moe):
    post = PostFactory(external_id="p-9")
    escalation = EscalationFactory(post=post)
    response = _post(
        client, f"/api/v1/escalations/{escalation.pk}/decision", _decision(escalation), moe_token
    )
    assert response.status_code == 200
    body = response.json()
    assert body["escalation"]["status"] == "decided"
    assert body["escalation"]["version"] == escalation.version + 1
    assert body["escalation"]["decision"]["action"] == "remove"
    assert body["escalation"]["decision"]["decided_by"] == "moe@example.com"
    assert body["removal"]["post_id"] == "p-9"
    assert body["removal"]["referral"] is False
    assert Post.objects.get(pk=post.pk).status == "removed"


def test_it_decides_with_a_session(client, moe):
    escalation = EscalationFactory()
    client.force_login(moe)
    response = _post(
        client,
        f"/api/v1/escalations/{escalation.pk}/decision",
        {"action": "keep", "version": escalation.version},
    )
    assert response.status_code == 200
    assert response.json()["removal"] is None
    assert Escalation.objects.get().action == "keep"


def test_it_answers_409_to_a_stale_version(client, moe_token):
    escalation = EscalationFactory()
    Escalation.objects.filter(pk=escalation.pk).update(version=escalation.version + 1)
    response = _post(
        client, f"/api/v1/escalations/{escalation.pk}/decision", _decision(escalation), moe_token
    )
    assert response.status_code == 409
    assert "changed since you opened it" in response.json()["detail"]
    assert not Removal.objects.exists()


def test_it_answers_400_with_the_fields_at_fault(client, moe_token):
    escalation = EscalationFactory()
    response = _post(
        client,
        f"/api/v1/escalations/{escalation.pk}/decision",
        {"action": "refer", "policy_code": "nope", "version": 0},
        moe_token,
    )
    assert response.status_code == 400
    body = response.json()
    assert body["detail"] == "Invalid input."
    assert set(body["fields"]) == {"policy_code", "version"}
    response = _post(
        client,
        f"/api/v1/escalations/{escalation.pk}/decision",
        _decision(escalation, note=""),
        moe_token,
    )
    assert response.status_code == 400
    assert response.json()["fields"] == {
        "note": ["Explain the decision: Remove and Refer need a note."]
    }
    assert Escalation.objects.get().status == "open"


def test_it_answers_404_for_an_unknown_escalation(client, moe_token):
    response = _post(client, "/api/v1/escalations/999/decision", {}, moe_token)
    assert response.status_code == 404
    assert response.json() == {"detail": "There is no escalation 999."}


def test_it_refuses_everyone_but_moderators(client, alice, ada):
    escalation = EscalationFactory()
    url = f"/api/v1/escalations/{escalation.pk}/decision"
    assert _post(client, url, _decision(escalation)).status_code == 401
    checker = make_token("checker", user=alice, name="alice's token")
    assert _post(client, url, _decision(escalation), checker).status_code == 403
    service = make_token("ingest", "disputes:write", name="platform")
    assert _post(client, url, _decision(escalation), service).status_code == 403
    client.force_login(ada)
    assert _post(client, url, _decision(escalation)).status_code == 403
    assert client.get("/api/v1/escalations/").status_code == 403
    assert Escalation.objects.get().status == "open"


def test_it_claims_through_the_api(client, moe_token, mia):
    escalation = EscalationFactory()
    response = _post(client, f"/api/v1/escalations/{escalation.pk}/claim", {}, moe_token)
    assert response.status_code == 200
    assert response.json()["claimed_by"] == "moe@example.com"
    mia_token = make_token("checker", user=mia, name="mia's token")
    response = _post(client, f"/api/v1/escalations/{escalation.pk}/claim", {}, mia_token)
    assert response.status_code == 409
    response = _post(
        client, f"/api/v1/escalations/{escalation.pk}/decision", _decision(escalation), mia_token
    )
    assert response.status_code == 409
    assert "Moe is working" in response.json()["detail"]


def test_it_lists_open_escalations_in_queue_order(client, moe_token, django_assert_num_queries):
    urgent = EscalationFactory(tier=Tier.URGENT)
    for _ in range(20):
        EscalationFactory(tier=Tier.NORMAL)
    EscalationFactory(status="decided", action="keep")
    auth = {"HTTP_AUTHORIZATION": f"Bearer {moe_token}"}
    client.get("/api/v1/escalations/", **auth)  # the token's first use records last_used_at
    # token lookup, moderators group check, pagination count, the page of escalations with
    # their posts and claimers
    with django_assert_num_queries(4):
        response = client.get("/api/v1/escalations/", **auth)
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 21
    assert body["results"][0]["id"] == urgent.pk
    assert body["results"][0]["tier"] == "urgent"
    assert body["results"][0]["post"]["id"] == urgent.post.external_id
    assert body["results"][0]["decision"] is None
    filtered = client.get("/api/v1/escalations/?tier=urgent", **auth)
    assert [item["id"] for item in filtered.json()["results"]] == [urgent.pk]
    bad = client.get("/api/v1/escalations/?tier=severe", **auth)
    assert bad.status_code == 400
    assert bad.json() == {"detail": "tier must be one of: urgent, high, normal."}


def test_it_shows_one_escalation_with_its_signals(client, moe_token):
    post = PostFactory()
    outcome = services.escalation_signal_add(
        post=post,
        source="user_reports",
        tier=Tier.NORMAL,
        score=None,
        details={"rate_per_1000_views": 4.2},
        dedupe_key="r1",
    )
    response = client.get(
        f"/api/v1/escalations/{outcome.escalation.pk}", HTTP_AUTHORIZATION=f"Bearer {moe_token}"
    )
    assert response.status_code == 200
    body = response.json()
    assert body["signals"] == [
        {
            "source": "user_reports",
            "tier": "normal",
            "score": None,
            "details": {"rate_per_1000_views": 4.2},
            "created_at": body["signals"][0]["created_at"],
        }
    ]
    assert EscalationSignal.objects.count() == 1


def test_it_documents_the_moderation_api_in_the_schema(client):
    schema = client.get("/api/schema/?format=json").json()
    paths = schema["paths"]
    assert "post" in paths["/api/v1/escalations/{escalation_id}/decision"]
    assert "409" in paths["/api/v1/escalations/{escalation_id}/decision"]["post"]["responses"]
    appeal = paths["/api/v1/removals/{post_id}/appeal"]["post"]
    assert {"201", "404", "409", "410"} <= set(appeal["responses"])
    assert "get" in paths["/api/v1/escalations/"]
