from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone

from factcheck.moderation import services
from factcheck.moderation.models import Escalation, EscalationSignal, Removal, RemovalAppeal
from factcheck.posts.models import Post
from tests.factories import EscalationFactory, PostFactory, RatingFactory, UserFactory

pytestmark = pytest.mark.django_db

HOSTILE = '<script>alert("x")</script> I will <b>kill</b> them all'


@pytest.fixture
def mia(db):
    user = UserFactory(email="mia@example.com", name="Mia")
    user.groups.add(Group.objects.get_or_create(name="moderators")[0])
    return user


@pytest.fixture
def escalation(db):
    return EscalationFactory(post=PostFactory(external_id="p-esc", text=HOSTILE))


@pytest.fixture
def appeal(escalation, moe):
    services.escalation_decide(
        escalation=escalation,
        user=moe,
        action="remove",
        policy_code="violence.threat",
        note="Threat.",
        context_flags=[],
        version=escalation.version,
    )
    return services.removal_appeal_file(
        post_external_id="p-esc", text="<i>I was joking</i>", actor="api:platform"
    )


def _pages(escalation, appeal):
    return [
        "/moderation/",
        "/moderation/decided/",
        f"/moderation/{escalation.pk}/",
        "/moderation/appeals/",
        f"/moderation/appeals/{appeal.pk}/",
    ]


@pytest.mark.parametrize("who", ["alice", "bob", "lena", "ada"])
def test_it_forbids_everyone_but_moderators(request, client_for, escalation, appeal, who):
    client = client_for(request.getfixturevalue(who))
    for url in _pages(escalation, appeal):
        assert client.get(url).status_code == 403, url
    for url in [
        f"/moderation/{escalation.pk}/claim",
        f"/moderation/{escalation.pk}/release",
        f"/moderation/{escalation.pk}/decide",
        f"/moderation/appeals/{appeal.pk}/decide",
    ]:
        assert client.post(url, {"action": "keep", "version": 1}).status_code == 403, url
    assert Escalation.objects.get().claimed_by is None
    assert RemovalAppeal.objects.get().status == "pending"


def test_it_sends_anonymous_people_to_log_in(client, escalation, appeal):
    for url in _pages(escalation, appeal):
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith("/accounts/login/?next=")


def test_it_shows_every_page_to_a_moderator(client_for, mia, escalation, appeal):
    client = client_for(mia)
    for url in _pages(escalation, appeal):
        assert client.get(url).status_code == 200, url


def test_it_lists_the_queue_escaped_with_the_sla_countdown(client_for, moe, escalation):
    Escalation.objects.filter(pk=escalation.pk).update(
        sla_due_at=timezone.now() - timedelta(hours=2)
    )
    fresh = EscalationFactory(tier=3, sla_due_at=timezone.now() + timedelta(minutes=40))
    response = client_for(moe).get("/moderation/")
    html = response.content.decode()
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html
    assert "Overdue by 2\xa0hours" in html
    assert "Due in 39\xa0minutes" in html or "Due in 40\xa0minutes" in html
    assert html.index(f"/moderation/{fresh.pk}/") < html.index(f"/moderation/{escalation.pk}/")
    assert "Open: 2 escalations" in html


def test_it_says_what_to_do_when_the_queue_is_empty(client_for, moe):
    html = client_for(moe).get("/moderation/").content.decode()
    assert "Nothing to decide" in html
    html = client_for(moe).get("/moderation/?tier=urgent").content.decode()
    assert "Clear the filters" in html


def test_it_renders_only_the_results_for_htmx(client_for, moe, escalation):
    response = client_for(moe).get("/moderation/?tier=high", HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="results"')
    assert "<html" not in html
    assert "p-esc" in html


def test_it_keeps_the_queue_within_its_query_budget(client_for, moe, django_assert_num_queries):
    for _ in range(30):
        EscalationFactory()
    client = client_for(moe)
    client.get("/moderation/")  # warm the session
    # session, user, moderators group, membership (nav), pagination count, the page of
    # escalations with their posts and claimers, the header's pending count
    with django_assert_num_queries(7):
        response = client.get("/moderation/")
    assert response.status_code == 200
    assert response.content.decode().count('href="/moderation/') >= 30


def test_it_highlights_matched_spans_without_trusting_the_text(client_for, moe, escalation):
    start = HOSTILE.index("<b>kill</b>")
    EscalationSignal.objects.create(
        escalation=escalation,
        source="scorer",
        tier=3,
        score=0.93,
        dedupe_key="s1",
        details={
            "result": {
                "attributes": {
                    "THREAT": {
                        "score": 0.93,
                        "spans": [
                            {
                                "start": start,
                                "end": start + len("<b>kill</b>"),
                                "text": "<b>kill</b>",
                                "rule": "threat.intent",
                            }
                        ],
                    }
                }
            }
        },
    )
    html = client_for(moe).get(f"/moderation/{escalation.pk}/").content.decode()
    assert "<script>" not in html
    assert "<b>kill</b>" not in html
    assert '<mark class="span" title="THREAT: threat.intent">&lt;b&gt;kill&lt;/b&gt;</mark>' in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; I will <mark" in html


def test_it_shows_the_ratings_and_engagement_on_the_detail_page(
    client_for, moe, escalation, partner_a
):
    RatingFactory(
        post=escalation.post,
        partner=partner_a,
        verdict="false",
        headline="<em>Fake</em> quote",
        advocates_violence=True,
    )
    Post.objects.filter(pk=escalation.post_id).update(reports_violence=77)
    html = client_for(moe).get(f"/moderation/{escalation.pk}/").content.decode()
    assert "&lt;em&gt;Fake&lt;/em&gt; quote" in html
    assert "Advocates violence" in html
    assert "Partner A" in html
    assert ">77<" in html


def test_it_claims_from_the_page(client_for, moe, mia, escalation):
    response = client_for(moe).post(f"/moderation/{escalation.pk}/claim", follow=True)
    assert "is yours until" in response.content.decode()
    assert Escalation.objects.get().claimed_by == moe
    response = client_for(mia).post(f"/moderation/{escalation.pk}/claim", follow=True)
    html = response.content.decode()
    assert "Moe is working on this escalation" in html
    assert Escalation.objects.get().claimed_by == moe
    client_for(moe).post(f"/moderation/{escalation.pk}/release")
    assert Escalation.objects.get().claimed_by is None


def test_it_removes_from_the_decision_form(client_for, moe, escalation):
    response = client_for(moe).post(
        f"/moderation/{escalation.pk}/decide",
        {
            "action": "remove",
            "policy_code": "violence.threat",
            "context_flags": ["newsworthy"],
            "note": "Direct threat.",
            "version": escalation.version,
        },
        follow=True,
    )
    assert response.redirect_chain[-1][0] == "/moderation/"
    assert "Removed post p-esc under Violence: threat." in response.content.decode()
    assert Removal.objects.get().post_id == escalation.post_id
    assert Post.objects.get(pk=escalation.post_id).status == "removed"


def test_it_shows_errors_next_to_the_fields(client_for, moe, escalation):
    response = client_for(moe).post(
        f"/moderation/{escalation.pk}/decide",
        {"action": "remove", "policy_code": "", "note": "", "version": escalation.version},
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "Choose the policy the post breaks." in html
    assert "Remove and Refer need a note." in html
    assert Escalation.objects.get().status == "open"


def test_it_refuses_a_stale_decision_with_a_clear_message(client_for, moe, escalation):
    Escalation.objects.filter(pk=escalation.pk).update(version=escalation.version + 1)
    response = client_for(moe).post(
        f"/moderation/{escalation.pk}/decide",
        {"action": "keep", "note": "Looks fine.", "version": escalation.version},
    )
    assert response.status_code == 409
    html = response.content.decode()
    assert "changed since you opened it" in html
    assert f'name="version" value="{escalation.version + 1}"' in html
    assert "Looks fine." in html  # the moderator's note is kept
    assert Escalation.objects.get().status == "open"


def test_it_decides_an_appeal_from_the_page(client_for, moe, mia, appeal):
    response = client_for(moe).get(f"/moderation/appeals/{appeal.pk}/")
    html = response.content.decode()
    assert "another moderator decides its appeal" in html
    assert "&lt;i&gt;I was joking&lt;/i&gt;" in html
    assert (
        client_for(moe)
        .post(f"/moderation/appeals/{appeal.pk}/decide", {"outcome": "overturn", "note": "x"})
        .status_code
        == 403
    )
    response = client_for(mia).post(
        f"/moderation/appeals/{appeal.pk}/decide", {"outcome": "overturn", "note": ""}
    )
    assert response.status_code == 400
    assert "Explain why the removal is overturned." in response.content.decode()
    response = client_for(mia).post(
        f"/moderation/appeals/{appeal.pk}/decide",
        {"outcome": "overturn", "note": "A joke between friends."},
        follow=True,
    )
    assert "Overturned: post p-esc is restored." in response.content.decode()
    assert Post.objects.get(external_id="p-esc").status == "queued"


def test_it_shows_the_pending_count_in_the_header(client_for, moe, alice, escalation):
    EscalationFactory()
    html = client_for(moe).get("/moderation/appeals/").content.decode()
    assert 'id="moderation-pending"' in html
    assert 'hx-get="/moderation/pending-count"' in html
    assert 'class="badge"' in html
    assert '>2<span class="visually-hidden"> open escalations</span>' in html
    response = client_for(moe).get("/moderation/pending-count", HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert ">2<" in response.content.decode()


def test_it_stops_the_header_poll_for_anyone_else(client_for, alice):
    assert client_for(None).get("/moderation/pending-count").status_code == 286
    assert client_for(alice).get("/moderation/pending-count").status_code == 286


def _remove(escalation, user):
    services.escalation_decide(
        escalation=escalation,
        user=user,
        action="remove",
        policy_code="hate.dehumanisation",
        note="n",
        context_flags=[],
        version=escalation.version,
    )


def test_it_keeps_the_appeals_and_decisions_within_budget(
    client_for, moe, mia, django_assert_num_queries
):
    for number in range(12):
        escalation = EscalationFactory()
        _remove(escalation, moe)
        services.removal_appeal_file(
            post_external_id=escalation.post.external_id, text=f"appeal {number}", actor="api:p"
        )
    client = client_for(mia)
    client.get("/moderation/appeals/")
    # session, user, moderators group, membership (nav), pagination count, the page of
    # appeals with their removals, posts and removers, the header's pending count
    with django_assert_num_queries(7):
        response = client.get("/moderation/appeals/")
    assert response.content.decode().count("appeal ") >= 12
    # the same, with decided escalations, their posts, claimers and deciders
    with django_assert_num_queries(7):
        response = client.get("/moderation/decided/")
    assert response.content.decode().count("Remove</span>") == 12


def test_it_says_what_to_do_when_no_appeal_waits(client_for, moe):
    html = client_for(moe).get("/moderation/appeals/").content.decode()
    assert "No appeal is waiting for you" in html
    html = client_for(moe).get("/moderation/decided/").content.decode()
    assert "No escalation has been decided yet" in html
