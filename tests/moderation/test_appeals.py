from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied
from django.utils import timezone

from factcheck.core.models import AuditEvent
from factcheck.demotion.services import demotion_apply
from factcheck.moderation import selectors, services
from factcheck.moderation.models import Removal, RemovalAppeal
from factcheck.posts.models import Post
from tests.factories import (
    EscalationFactory,
    PostFactory,
    RatingFactory,
    UserFactory,
    make_token,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def mia(db):
    user = UserFactory(email="mia@example.com", name="Mia")
    user.groups.add(Group.objects.get_or_create(name="moderators")[0])
    return user


@pytest.fixture
def platform():
    return make_token("disputes:write", name="platform")


@pytest.fixture
def removed_post(moe, partner_a):
    post = PostFactory(external_id="p-1", status=Post.Status.RATED)
    RatingFactory(post=post, partner=partner_a, verdict="false", attacks_protected_group=True)
    demotion_apply(post_id=post.pk)
    escalation = EscalationFactory(post=post)
    services.escalation_decide(
        escalation=escalation,
        user=moe,
        action="remove",
        policy_code="hate.slur",
        note="Slur against a protected group.",
        context_flags=[],
        version=escalation.version,
    )
    return post


def _appeal(client, token, post_id="p-1", text="It was a quote from a news report."):
    return client.post(
        f"/api/v1/removals/{post_id}/appeal",
        {"text": text},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {token}",
    )


def _lookup(client, external_id):
    token = make_token("demotions:read", name="ranker")
    response = client.post(
        "/api/v1/demotions/lookup",
        {"post_ids": [external_id]},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {token}",
    )
    return response.json()["demotions"].get(external_id)


def test_it_files_an_appeal_once(client, platform, removed_post):
    response = _appeal(client, platform)
    assert response.status_code == 201
    body = response.json()
    assert body["post_id"] == "p-1"
    assert body["status"] == "pending"
    assert body["removal"]["policy_code"] == "hate.slur"
    removal = Removal.objects.get()
    assert body["removal"]["appeal_deadline"].startswith(
        (removal.created_at + timedelta(days=20)).date().isoformat()
    )
    again = _appeal(client, platform, text="Please look again.")
    assert again.status_code == 409
    assert "appealed once" in again.json()["detail"]
    assert RemovalAppeal.objects.count() == 1
    assert AuditEvent.objects.get(action="removal.appeal").actor_label == "api:platform"
    status = client.get("/api/v1/removals/p-1/appeal", HTTP_AUTHORIZATION=f"Bearer {platform}")
    assert status.json()["status"] == "pending"


def test_it_closes_the_appeal_window_after_20_days(client, platform, removed_post):
    removal = Removal.objects.get()
    Removal.objects.filter(pk=removal.pk).update(
        created_at=timezone.now() - timedelta(days=20, minutes=1)
    )
    response = _appeal(client, platform)
    assert response.status_code == 410
    assert "within 20 days" in response.json()["detail"]
    assert not RemovalAppeal.objects.exists()
    Removal.objects.filter(pk=removal.pk).update(
        created_at=timezone.now() - timedelta(days=19, hours=23)
    )
    assert _appeal(client, platform).status_code == 201


def test_it_refuses_appeals_of_posts_that_are_not_removed(client, platform):
    PostFactory(external_id="p-up")
    response = _appeal(client, platform, post_id="p-up")
    assert response.status_code == 404
    assert response.json() == {"detail": "Post p-up is not removed: nothing to appeal."}
    assert _appeal(client, platform, post_id="nope").status_code == 404


def test_it_validates_the_appeal_text(client, platform, removed_post):
    response = _appeal(client, platform, text="")
    assert response.status_code == 400
    assert response.json()["fields"]["text"]
    assert not RemovalAppeal.objects.exists()


def test_it_needs_the_disputes_scope(client, removed_post, moe):
    ingest = make_token("ingest", name="ingester")
    assert _appeal(client, ingest).status_code == 403
    assert client.post("/api/v1/removals/p-1/appeal", {"text": "x"}).status_code == 401
    client.force_login(moe)
    assert client.post("/api/v1/removals/p-1/appeal", {"text": "x"}).status_code == 403


def test_it_queues_the_appeal_for_other_moderators_only(client, platform, removed_post, moe, mia):
    _appeal(client, platform)
    appeal = RemovalAppeal.objects.get()
    assert list(selectors.appeal_queue(user=moe)) == []
    assert list(selectors.appeal_queue(user=mia)) == [appeal]
    with pytest.raises(PermissionDenied):
        services.removal_appeal_decide(appeal=appeal, user=moe, outcome="overturn", note="mine")
    appeal.refresh_from_db()
    assert appeal.status == RemovalAppeal.Status.PENDING


def test_it_overturns_a_removal_and_restores_the_post(client, platform, removed_post, mia):
    assert _lookup(client, "p-1") == {"multiplier": 0.0, "label": "false", "removed": True}
    _appeal(client, platform)
    appeal = services.removal_appeal_decide(
        appeal=RemovalAppeal.objects.get(),
        user=mia,
        outcome="overturn",
        note="It quotes a news report.",
    )
    assert appeal.status == RemovalAppeal.Status.OVERTURNED
    assert Post.objects.get(pk=removed_post.pk).status == Post.Status.RATED
    removal = Removal.objects.get()
    assert removal.overturned_by == mia
    # Back to its demotion as rated.
    assert _lookup(client, "p-1") == {"multiplier": 0.2, "label": "false", "removed": False}
    assert AuditEvent.objects.filter(action="removal.appeal_overturn", actor=mia).exists()
    assert AuditEvent.objects.filter(action="post.restore").exists()
    assert list(selectors.appeal_queue(user=mia)) == []
    with pytest.raises(services.AppealAlreadyDecided):
        services.removal_appeal_decide(appeal=appeal, user=mia, outcome="uphold", note="")
    # An overturned removal cannot be appealed again: there is nothing to appeal.
    assert _appeal(client, platform).status_code == 404


def test_it_restores_a_post_that_was_in_review_to_the_queue(moe, mia):
    post = PostFactory(status=Post.Status.IN_REVIEW)
    escalation = EscalationFactory(post=post)
    services.escalation_decide(
        escalation=escalation,
        user=moe,
        action="remove",
        policy_code="violence.threat",
        note="n",
        context_flags=[],
        version=escalation.version,
    )
    appeal = services.removal_appeal_file(post_external_id=post.external_id, text="t", actor="x")
    services.removal_appeal_decide(appeal=appeal, user=mia, outcome="overturn", note="ok")
    assert Post.objects.get(pk=post.pk).status == Post.Status.QUEUED


def test_it_upholds_a_removal(client, platform, removed_post, mia):
    _appeal(client, platform)
    services.removal_appeal_decide(
        appeal=RemovalAppeal.objects.get(), user=mia, outcome="uphold", note=""
    )
    assert RemovalAppeal.objects.get().status == RemovalAppeal.Status.UPHELD
    assert Post.objects.get(pk=removed_post.pk).status == Post.Status.REMOVED
    assert _lookup(client, "p-1")["removed"] is True


def test_it_needs_a_note_to_overturn(client, platform, removed_post, mia):
    _appeal(client, platform)
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError):
        services.removal_appeal_decide(
            appeal=RemovalAppeal.objects.get(), user=mia, outcome="overturn", note=" "
        )
    assert Post.objects.get(pk=removed_post.pk).status == Post.Status.REMOVED
