"""Issue 4 on the review side: the rating form, rating_submit, the partner API and the
demotion panel."""

from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse
from django.utils import timezone
from kombu.exceptions import OperationalError
from rest_framework.test import APIClient

from factcheck.celery import app as celery_app
from factcheck.core.models import AuditEvent
from factcheck.demotion.models import Demotion
from factcheck.demotion.tasks import demotion_apply
from factcheck.partners.access import PartnerCannotAct
from factcheck.posts.models import Post
from factcheck.ratings.models import Rating
from factcheck.review import services
from factcheck.review.models import Claim
from tests.factories import PostFactory, RatingFactory, make_token
from tests.review.factories import ClaimFactory

pytestmark = pytest.mark.django_db

FALSE_RATING = {
    "verdict": "false",
    "headline": "No, the cure does not work",
    "summary": "Three trials found no effect.",
    "article_url": "https://factcheck.example/cure",
    "sources": ["https://journal.example/trial-1", "https://journal.example/trial-2"],
}


@pytest.fixture
def claim(alice, partner_a):
    return ClaimFactory(checker=alice, partner=partner_a, post__external_id="p-1")


def rate_url(post) -> str:
    return reverse("review:rate", args=[post.external_id])


def form_data(**overrides) -> dict:
    data = {**FALSE_RATING, **overrides}
    data["sources"] = "\n".join(data["sources"])
    return {key: value for key, value in data.items() if value is not None}


# --- rating_submit --------------------------------------------------------------------------


def test_submitting_completes_the_claim_and_demotes_the_post(
    alice, claim, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        rating = services.rating_submit(claim=claim, user=alice, **FALSE_RATING)

    assert (rating.verdict, rating.version, rating.checker) == ("false", 1, alice)
    assert rating.sources == FALSE_RATING["sources"]
    claim.refresh_from_db()
    assert claim.state == Claim.State.COMPLETED and claim.ended_at is not None
    assert Post.objects.get(pk=claim.post_id).status == Post.Status.RATED
    assert Demotion.objects.get(post=claim.post).multiplier == pytest.approx(0.2)
    assert AuditEvent.objects.filter(action="claim.complete", object_id=str(claim.pk)).exists()


def test_a_refused_rating_leaves_the_claim_live(alice, claim):
    with pytest.raises(ValidationError) as error:
        services.rating_submit(claim=claim, user=alice, **{**FALSE_RATING, "article_url": ""})
    assert "article_url" in error.value.message_dict
    claim.refresh_from_db()
    assert claim.state == Claim.State.ACTIVE
    assert not Rating.objects.exists()


def test_only_the_holder_rates(anna, claim):
    with pytest.raises(PermissionDenied):
        services.rating_submit(claim=claim, user=anna, **FALSE_RATING)
    assert not Rating.objects.exists()


def test_an_expired_lease_cannot_be_rated(alice, partner_a):
    stale = ClaimFactory(
        checker=alice, partner=partner_a, claimed_at=timezone.now() - timedelta(hours=1)
    )
    with pytest.raises(services.ClaimNotActive, match="has ended"):
        services.rating_submit(claim=stale, user=alice, **FALSE_RATING)
    assert not Rating.objects.exists()


def test_a_released_claim_cannot_be_rated(alice, claim):
    services.claim_release(claim=claim, user=alice)
    with pytest.raises(services.ClaimNotActive):
        services.rating_submit(claim=claim, user=alice, **FALSE_RATING)


def test_a_suspended_partner_cannot_rate(alice, claim, partner_a):
    partner_a.status = partner_a.Status.SUSPENDED
    partner_a.save()
    alice.__dict__.pop("_membership", None)
    with pytest.raises(PartnerCannotAct):
        services.rating_submit(claim=claim, user=alice, **FALSE_RATING)


def test_submitting_works_while_the_broker_is_down(
    alice, claim, monkeypatch, django_capture_on_commit_callbacks
):
    celery_app.conf.task_always_eager = False

    def broker_down(*args, **kwargs):
        raise OperationalError("Connection refused")

    monkeypatch.setattr(demotion_apply, "apply_async", broker_down)
    with django_capture_on_commit_callbacks(execute=True):
        rating = services.rating_submit(claim=claim, user=alice, **FALSE_RATING)

    rating.refresh_from_db()
    assert rating.demotion_applied_at is None  # the reconciler's to pick up
    claim.refresh_from_db()
    assert claim.state == Claim.State.COMPLETED


# --- the form -------------------------------------------------------------------------------


def test_the_holder_gets_a_labelled_rating_form(alice, claim, client_for):
    body = client_for(alice).get(reverse("review:review", args=["p-1"])).text
    for label in [
        "False",
        "Altered",
        "Partly false",
        "Missing context",
        "Satire",
        "True",
        "Not eligible",
        '<label for="id_headline">Headline:</label>',
        '<label for="id_summary">Summary:</label>',
        '<label for="id_article_url">Fact-check article URL:</label>',
        '<label for="id_sources">Sources:</label>',
        '<label for="id_advocates_violence">Advocates violence</label>',
        '<label for="id_attacks_protected_group">Attacks a protected group</label>',
        '<label for="id_target_group">Target group:</label>',
        "<legend>Verdict:</legend>",
        'maxlength="200"',
        ">Submit rating</button>",
    ]:
        assert label in body


@pytest.mark.parametrize("who", ["anna", "bob", "lena"])
def test_nobody_else_gets_the_rating_form(who, request, claim, client_for):
    body = client_for(request.getfixturevalue(who)).get(reverse("review:review", args=["p-1"]))
    assert "Submit rating" not in body.text


def test_a_rating_sends_the_checker_back_to_the_queue(alice, claim, client_for):
    client = client_for(alice)
    response = client.post(rate_url(claim.post), form_data(), follow=True)
    assert response.redirect_chain == [(reverse("review:queue"), 302)]
    assert "Rated post p-1 “False”" in response.text
    assert 'data-shortcut="n"' in response.text
    rating = Rating.objects.get()
    assert rating.sources == FALSE_RATING["sources"]
    assert rating.summary == FALSE_RATING["summary"]


def test_a_rating_through_htmx_redirects_the_browser(alice, claim, client_for):
    response = client_for(alice).post(
        rate_url(claim.post), form_data(), HTTP_HX_REQUEST="true", HTTP_HX_TARGET="review-body"
    )
    assert response["HX-Redirect"] == reverse("review:queue")
    assert Rating.objects.count() == 1


@pytest.mark.parametrize(
    ("overrides", "field", "message"),
    [
        ({"article_url": ""}, "article_url", "needs the URL of the fact-check article"),
        ({"article_url": "javascript:alert(1)"}, "article_url", "http:// or https://"),
        ({"headline": "x" * 201}, "headline", "at most 200 characters"),
        ({"verdict": None}, "verdict", "Choose a verdict."),
        ({"sources": ["ftp://old.example/x"]}, "sources", "http(s) address"),
        (
            {"attacks_protected_group": "on", "target_group": ""},
            "target_group",
            "Name the group the post attacks.",
        ),
    ],
)
def test_a_bad_rating_shows_the_error_by_its_field_and_keeps_what_was_typed(
    overrides, field, message, alice, claim, client_for
):
    data = form_data(summary="Typed <carefully>", **overrides)
    response = client_for(alice).post(rate_url(claim.post), data)

    assert response.status_code == 400
    body = response.text
    error_at = body.index(f'id="id_{field}_error"')
    assert message in body[error_at : error_at + 400]
    assert "Typed &lt;carefully&gt;</textarea>" in body
    assert "https://journal.example/trial-1\nhttps://journal.example/trial-2" in body or (
        field == "sources"
    )
    assert not Rating.objects.exists()
    claim.refresh_from_db()
    assert claim.state == Claim.State.ACTIVE


def test_one_submit_shows_every_error(alice, claim, client_for):
    data = form_data(verdict=None, headline="", article_url="ftp://x", sources=["nope"])
    body = client_for(alice).post(rate_url(claim.post), data).text
    for field in ["verdict", "headline", "article_url", "sources"]:
        assert f'id="id_{field}_error"' in body


def test_true_and_satire_need_no_article(alice, claim, client_for):
    response = client_for(alice).post(
        rate_url(claim.post), form_data(verdict="satire", article_url="")
    )
    assert response.status_code == 302
    assert Rating.objects.get().verdict == "satire"


def test_a_bad_rating_through_htmx_is_swapped_in_place(alice, claim, client_for):
    response = client_for(alice).post(
        rate_url(claim.post),
        form_data(article_url=""),
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="review-body",
    )
    assert response.status_code == 200
    assert response.text.lstrip().startswith('<div id="review-body">')
    assert "needs the URL of the fact-check article" in response.text


def test_someone_without_the_claim_cannot_post_a_rating(anna, bob, claim, client_for):
    for user in (anna, bob):
        response = client_for(user).post(rate_url(claim.post), form_data(), follow=True)
        assert "You do not hold this post" in response.text
    assert not Rating.objects.exists()


def test_a_lease_that_ran_out_says_so(alice, partner_a, client_for):
    stale = ClaimFactory(
        checker=alice, partner=partner_a, claimed_at=timezone.now() - timedelta(hours=1)
    )
    response = client_for(alice).post(rate_url(stale.post), form_data(), follow=True)
    assert "Your claim on this post has ended" in response.text
    assert not Rating.objects.exists()


# --- the demotion panel ---------------------------------------------------------------------


def test_the_panel_shows_an_applied_demotion(
    alice, claim, client_for, django_capture_on_commit_callbacks
):
    client = client_for(alice)
    with django_capture_on_commit_callbacks(execute=True):  # eager Celery: applied on commit
        client.post(rate_url(claim.post), form_data())
    body = client.get(reverse("review:review", args=["p-1"])).text
    panel = body[body.index('id="demotion-panel"') :]
    assert "Applied ×0.2" in panel
    assert "Rated False by Partner A" in panel
    assert "hx-trigger" not in panel[: panel.index("</section>")]


def test_the_panel_polls_while_the_demotion_is_pending(alice, partner_a, client_for):
    post = PostFactory(external_id="pending-1", status=Post.Status.RATED)
    RatingFactory(post=post, partner=partner_a)
    client = client_for(alice)
    body = client.get(reverse("review:review", args=["pending-1"])).text
    assert "Pending" in body
    assert 'hx-get="/review/pending-1/demotion/" hx-trigger="every 2s"' in body

    panel = client.get("/review/pending-1/demotion/", HTTP_HX_REQUEST="true")
    assert panel.text.lstrip().startswith('<section id="demotion-panel"')
    assert "Pending" in panel.text
    assert client.get("/review/pending-1/demotion/")["Location"] == "/review/pending-1/"


def test_the_panel_says_when_a_post_is_not_rated(alice, client_for):
    PostFactory(external_id="fresh")
    body = client_for(alice).get("/review/fresh/").text
    assert "Not rated yet: the post keeps its full reach." in body


# --- the partner API ------------------------------------------------------------------------


def api(user):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {make_token('checker', user=user)}")
    return client


def test_the_api_rates_a_claimed_post(alice, claim):
    body = {**FALSE_RATING, "advocates_violence": False, "target_group": ""}
    response = api(alice).post("/api/v1/posts/p-1/ratings", body, format="json")
    assert response.status_code == 201
    rating = Rating.objects.get()
    assert response.json() == {
        "id": rating.pk,
        "post_id": "p-1",
        "verdict": "false",
        "version": 1,
        "created_at": rating.created_at.isoformat().replace("+00:00", "Z"),
    }
    claim.refresh_from_db()
    assert claim.state == Claim.State.COMPLETED


def test_the_api_answers_409_without_a_live_claim(alice, anna, claim):
    response = api(anna).post("/api/v1/posts/p-1/ratings", FALSE_RATING, format="json")
    assert response.status_code == 409
    assert response.json() == {"detail": "You hold no live claim on this post: claim it first."}
    Claim.objects.filter(pk=claim.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    response = api(alice).post("/api/v1/posts/p-1/ratings", FALSE_RATING, format="json")
    assert response.status_code == 409
    assert not Rating.objects.exists()


def test_the_api_answers_400_with_fields(alice, claim):
    response = api(alice).post(
        "/api/v1/posts/p-1/ratings", {**FALSE_RATING, "article_url": ""}, format="json"
    )
    assert response.status_code == 400
    assert list(response.json()["fields"]) == ["article_url"]
    response = api(alice).post(
        "/api/v1/posts/p-1/ratings", {**FALSE_RATING, "verdict": "fake"}, format="json"
    )
    assert response.status_code == 400
    assert list(response.json()["fields"]) == ["verdict"]
    claim.refresh_from_db()
    assert claim.state == Claim.State.ACTIVE


def test_the_api_answers_404_for_an_unknown_post(alice):
    response = api(alice).post("/api/v1/posts/nope/ratings", FALSE_RATING, format="json")
    assert response.status_code == 404


def test_the_api_answers_403_when_the_partner_cannot_act(alice, claim, partner_a):
    partner_a.status = partner_a.Status.SUSPENDED
    partner_a.save()
    response = api(alice).post("/api/v1/posts/p-1/ratings", FALSE_RATING, format="json")
    assert response.status_code == 403
    assert not Rating.objects.exists()
