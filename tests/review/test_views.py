from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from factcheck.posts.models import Post
from factcheck.ratings.models import Rating
from factcheck.review.models import Claim, Skip
from tests.factories import PostFactory, SnapshotFactory
from tests.review.factories import ClaimFactory

pytestmark = pytest.mark.django_db

QUEUE = reverse("review:queue")
CLAIM = reverse("review:claim_next")
HTMX = {"HTTP_HX_REQUEST": "true"}


def review_url(post) -> str:
    return reverse("review:review", args=[post.external_id])


def htmx_to(target: str) -> dict:
    return {**HTMX, "HTTP_HX_TARGET": target}


# --- the queue: who may see it --------------------------------------------------------------


def test_it_sends_anonymous_visitors_to_log_in(client_for):
    response = client_for(None).get(QUEUE)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize("who", ["alice", "lena"])
def test_it_shows_partner_a_its_english_queue(who, request, client_for):
    PostFactory(text="An English rumour", language="en")
    PostFactory(text="Un rumor en español", language="es")
    response = client_for(request.getfixturevalue(who)).get(QUEUE)
    assert response.status_code == 200
    assert "An English rumour" in response.text
    assert "Un rumor en español" not in response.text
    assert "Waiting: 1 post" in response.text


def test_it_shows_partner_b_its_spanish_queue(bob, client_for):
    PostFactory(text="An English rumour", language="en")
    PostFactory(text="Un rumor en español", language="es")
    response = client_for(bob).get(QUEUE)
    assert "Un rumor en español" in response.text
    assert "An English rumour" not in response.text


@pytest.mark.parametrize("who", ["moe", "ada"])
def test_it_tells_staff_without_a_partner_the_queue_is_not_theirs(who, request, client_for):
    response = client_for(request.getfixturevalue(who)).get(QUEUE)
    assert response.status_code == 403
    assert "This page is for fact-checkers" in response.text
    assert "not a member of a partner" in response.text


def test_it_lists_the_queue_most_trending_first_with_its_details(alice, client_for):
    post = PostFactory(
        text="Second", trending_score=5, author_name="Sam Source", shares=1234, language="en"
    )
    PostFactory(text="First", trending_score=50)
    for hours, shares in [(3, 10), (2, 400), (1, 1234)]:
        SnapshotFactory(
            post=post, observed_at=timezone.now() - timedelta(hours=hours), shares=shares
        )
    body = client_for(alice).get(QUEUE).text
    assert body.index("First") < body.index("Second")
    assert "Sam Source" in body
    assert "1,234" in body
    assert 'aria-label="Shares over the last 3 observations: 10 to 1,234"' in body
    assert "<time datetime=" in body and "hours ago" in body
    assert f'href="{review_url(post)}"' in body


def test_it_draws_the_sparkline_from_the_last_twelve_snapshots(alice, client_for):
    post = PostFactory()
    now = timezone.now()
    for i in range(15):
        SnapshotFactory(post=post, observed_at=now - timedelta(hours=15 - i), shares=i)
    body = client_for(alice).get(QUEUE).text
    assert "Shares over the last 12 observations: 3 to 14" in body


def test_it_leaves_out_posts_the_partner_skipped_or_someone_holds(
    alice, anna, partner_a, client_for
):
    skipped = PostFactory(text="Skipped one")
    Skip.objects.create(post=skipped, partner=partner_a, checker=anna, reason="other")
    ClaimFactory(partner=partner_a, checker=anna, post__text="Held one")
    PostFactory(text="Free one")
    body = client_for(alice).get(QUEUE).text
    assert "Free one" in body
    assert "Skipped one" not in body
    assert "Held one" not in body
    assert "Waiting: 1 post" in body


def test_it_shows_the_checkers_own_claims_with_time_left(alice, anna, partner_a, client_for):
    ClaimFactory(checker=alice, partner=partner_a, post__text="Mine to check")
    ClaimFactory(checker=anna, partner=partner_a, post__text="Annas to check")
    body = client_for(alice).get(QUEUE).text
    assert "Mine to check" in body
    assert "Annas to check" not in body
    assert "min left" in body
    assert "Release" in body


def test_it_says_what_to_do_when_the_queue_is_empty(alice, client_for):
    body = client_for(alice).get(QUEUE).text
    assert "The queue is empty" in body
    assert "come back in a few minutes" in body
    assert "You hold no claims" in body


def test_it_offers_claim_next_on_the_n_key_and_documents_it(alice, client_for):
    body = client_for(alice).get(QUEUE).text
    assert 'data-shortcut="n"' in body
    assert "Claim next post" in body
    # Inside the ? dialog as well as on the page.
    dialog = body[body.index('id="shortcuts-help"') :]
    assert "<kbd>n</kbd>" in dialog


def test_it_escapes_post_text(alice, client_for):
    post = PostFactory(text='<script>alert("x")</script> <b>bold</b>', author_name="<img src=x>")
    for url in (QUEUE, review_url(post)):
        body = client_for(alice).get(url).text
        assert "<script>alert" not in body
        assert "&lt;script&gt;alert" in body
        assert "<img src=x>" not in body


def test_it_paginates_fifty_a_page(alice, client_for):
    for i in range(55):
        PostFactory(text=f"Post number {i:03d}", trending_score=1000 - i)
    first = client_for(alice).get(QUEUE).text
    second = client_for(alice).get(QUEUE, {"page": 2}).text
    assert "Post number 049" in first and "Post number 050" not in first
    assert "Post number 050" in second and "Post number 054" in second
    assert "Waiting: 55 posts" in first
    assert "Page 2 of 2" in second


@pytest.mark.parametrize("queued", [10, 1000])
def test_it_reads_the_queue_in_a_fixed_number_of_queries(
    queued, alice, partner_a, client_for, django_assert_num_queries
):
    posts = Post.objects.bulk_create(
        Post(
            external_id=f"bulk-{i}",
            author_external_id=f"a{i}",
            language="en",
            published_at=timezone.now(),
            trending_score=i,
        )
        for i in range(queued)
    )
    SnapshotFactory(post=posts[-1])
    ClaimFactory(checker=alice, partner=partner_a)
    client = client_for(alice)
    # session, user, membership with partner, moderator group (header), queue count, queue
    # page, the page's snapshots, the checker's live claims.
    with django_assert_num_queries(8):
        response = client.get(QUEUE)
    assert response.status_code == 200


# --- suspended partners ---------------------------------------------------------------------


def test_a_suspended_partner_sees_the_queue_read_only(alice, partner_a, client_for):
    PostFactory(text="Still listed")
    partner_a.status = partner_a.Status.SUSPENDED
    partner_a.save()
    client = client_for(alice)

    body = client.get(QUEUE).text
    assert "Still listed" in body
    assert "cannot claim or rate posts right now" in body  # the banner
    assert "Claiming is paused" in body

    response = client.post(CLAIM, follow=True)
    assert "Partner A is suspended" in response.text
    assert not Claim.objects.exists()


# --- claiming -------------------------------------------------------------------------------


def test_claim_next_takes_the_top_post_and_opens_it(alice, client_for):
    post = PostFactory(trending_score=99)
    PostFactory(trending_score=1)
    client = client_for(alice)
    response = client.post(CLAIM)
    assert response.status_code == 302
    assert response["Location"] == review_url(post)
    page = client.get(response["Location"])
    assert "You claimed this post for 20 minutes" in page.text
    assert "Release back to the queue" in page.text


def test_claim_next_through_htmx_redirects_the_browser(alice, client_for):
    post = PostFactory()
    response = client_for(alice).post(CLAIM, **htmx_to("claim-panel"))
    assert response.status_code == 200
    assert response["HX-Redirect"] == review_url(post)


def test_claim_next_with_nothing_eligible_says_so_in_place(alice, client_for):
    response = client_for(alice).post(CLAIM, **htmx_to("claim-panel"))
    assert response.status_code == 200
    assert "<html" not in response.text
    assert 'id="claim-panel"' in response.text
    assert "Nothing to claim" in response.text


def test_claim_next_without_javascript_comes_back_with_a_message(alice, client_for):
    response = client_for(alice).post(CLAIM, follow=True)
    assert response.redirect_chain == [(QUEUE, 302)]
    assert "Nothing to claim" in response.text


def test_claim_next_at_the_limit_refuses_with_a_message(alice, client_for, settings):
    settings.FACTCHECK_MAX_CLAIMS = 1
    PostFactory.create_batch(2)
    client = client_for(alice)
    client.post(CLAIM)
    response = client.post(CLAIM, follow=True)
    assert "You already hold 1 claims" in response.text
    assert Claim.objects.filter(checker=alice).count() == 1


def test_claim_next_refuses_get(alice, client_for):
    assert client_for(alice).get(CLAIM).status_code == 405


@pytest.mark.parametrize("who", ["moe", "ada"])
def test_claim_next_refuses_staff_without_a_partner(who, request, client_for):
    PostFactory()
    response = client_for(request.getfixturevalue(who)).post(CLAIM)
    assert response.status_code == 403
    assert not Claim.objects.exists()


# --- the review page: who sees what ---------------------------------------------------------


@pytest.fixture
def alices_claim(alice, partner_a):
    return ClaimFactory(checker=alice, partner=partner_a, post__text="A claim to check")


def test_the_review_page_sends_anonymous_visitors_to_log_in(alices_claim, client_for):
    response = client_for(None).get(review_url(alices_claim.post))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_the_holder_gets_the_claim_controls(alice, alices_claim, client_for):
    body = client_for(alice).get(review_url(alices_claim.post)).text
    assert "A claim to check" in body
    assert "Release back to the queue" in body
    assert "Skip this post" in body
    for reason in ["Not eligible or opinion", "Cannot verify", "Conflict of interest", "Other"]:
        assert reason in body
    assert '<label for="id_reason">' in body
    assert "min left" in body


@pytest.mark.parametrize("who", ["anna", "lena"])
def test_colleagues_see_who_holds_it_but_get_no_controls(who, request, alices_claim, client_for):
    body = client_for(request.getfixturevalue(who)).get(review_url(alices_claim.post)).text
    assert "A claim to check" in body
    assert "In review" in body and "Alice" in body
    assert "Release back to the queue" not in body
    assert "Skip this post" not in body


def test_another_partner_sees_the_post_but_not_the_claim(bob, alices_claim, client_for):
    response = client_for(bob).get(review_url(alices_claim.post))
    assert response.status_code == 200
    assert "A claim to check" in response.text
    assert "Another fact-checker is reviewing this post" in response.text
    assert "Alice" not in response.text
    assert "min left" not in response.text
    assert "Release back to the queue" not in response.text


@pytest.mark.parametrize("who", ["moe", "ada"])
def test_staff_without_a_partner_get_a_clear_403(who, request, alices_claim, client_for):
    response = client_for(request.getfixturevalue(who)).get(review_url(alices_claim.post))
    assert response.status_code == 403
    assert "This page is for fact-checkers" in response.text


def test_an_unknown_post_is_a_404(alice, client_for):
    assert client_for(alice).get("/review/no-such-post/").status_code == 404


def test_post_ids_with_punctuation_work(alice, client_for):
    post = PostFactory(external_id="tw:123_4.5-x", text="Punctuated")
    assert review_url(post) == "/review/tw:123_4.5-x/"
    assert "Punctuated" in client_for(alice).get(review_url(post)).text


def test_the_review_page_charts_engagement_with_a_data_table(alice, client_for):
    post = PostFactory()
    now = timezone.now()
    SnapshotFactory(post=post, observed_at=now - timedelta(hours=2), shares=10, views=100)
    SnapshotFactory(post=post, observed_at=now - timedelta(hours=1), shares=250, views=9000)
    body = client_for(alice).get(review_url(post)).text
    assert '<svg class="chart"' in body
    assert "shares 10 to 250, views 100 to 9,000" in body
    assert "Engagement data table (2 observations)" in body
    assert "9,000" in body


def test_the_review_page_lists_the_authors_earlier_ratings(alice, partner_a, partner_b, client_for):
    post = PostFactory(author_external_id="author-7")
    earlier = PostFactory(author_external_id="author-7", text="An earlier claim")
    stranger = PostFactory(author_external_id="someone-else", text="Not by this author")
    common = {"post": earlier, "partner": partner_a, "checker": alice}
    first = Rating.objects.create(**common, verdict="partly_false", headline="Old headline")
    Rating.objects.create(
        **common, verdict="false", headline="Corrected headline", version=2, supersedes=first
    )
    Rating.objects.create(
        post=earlier, partner=partner_b, verdict="missing_context", headline="B says"
    )
    Rating.objects.create(post=stranger, partner=partner_a, verdict="false", headline="Elsewhere")
    body = client_for(alice).get(review_url(post)).text
    assert "An earlier claim" in body
    assert "Corrected headline" in body
    assert "B says" in body
    assert "Old headline" not in body
    assert "Elsewhere" not in body


def test_the_review_page_says_when_the_author_has_no_ratings(alice, client_for):
    body = client_for(alice).get(review_url(PostFactory())).text
    assert "No earlier ratings of posts by this author." in body


# --- release and skip -----------------------------------------------------------------------


def test_release_without_javascript_goes_back_to_the_queue(alice, alices_claim, client_for):
    url = reverse("review:claim_release", args=[alices_claim.pk])
    response = client_for(alice).post(url, follow=True)
    assert response.redirect_chain == [(QUEUE, 302)]
    assert f"Released post {alices_claim.post.external_id}" in response.text
    alices_claim.refresh_from_db()
    assert alices_claim.state == Claim.State.RELEASED


def test_release_through_htmx_updates_the_review_page_in_place(alice, alices_claim, client_for):
    url = reverse("review:claim_release", args=[alices_claim.pk])
    response = client_for(alice).post(url, **htmx_to("review-body"))
    assert response.status_code == 200
    assert "<html" not in response.text
    assert response.text.lstrip().startswith('<div id="review-body">')
    assert "it is back in the queue" in response.text
    assert "Release back to the queue" not in response.text
    assert 'data-shortcut="n"' in response.text  # the next post is one key away


def test_release_from_the_queue_updates_the_claim_list_in_place(alice, alices_claim, client_for):
    url = reverse("review:claim_release", args=[alices_claim.pk])
    response = client_for(alice).post(url, **htmx_to("my-claims"))
    assert response.text.lstrip().startswith('<section id="my-claims"')
    assert "You hold no claims" in response.text


def test_release_of_someone_elses_claim_is_a_404(anna, bob, alices_claim, client_for):
    url = reverse("review:claim_release", args=[alices_claim.pk])
    for user in (anna, bob):
        assert client_for(user).post(url).status_code == 404
    alices_claim.refresh_from_db()
    assert alices_claim.state == Claim.State.ACTIVE


def test_release_twice_says_the_claim_ended(alice, alices_claim, client_for):
    url = reverse("review:claim_release", args=[alices_claim.pk])
    client = client_for(alice)
    client.post(url)
    response = client.post(url, follow=True)
    assert "This claim has already ended (released)" in response.text


def test_skip_without_javascript_records_the_reason(alice, alices_claim, client_for):
    url = reverse("review:claim_skip", args=[alices_claim.pk])
    response = client_for(alice).post(url, {"reason": "not_eligible", "note": "Opinion piece"})
    assert response.status_code == 302
    assert response["Location"] == QUEUE
    skip = Skip.objects.get()
    assert (skip.reason, skip.note) == ("not_eligible", "Opinion piece")


def test_skip_without_a_reason_shows_the_error_and_keeps_the_note(alice, alices_claim, client_for):
    url = reverse("review:claim_skip", args=[alices_claim.pk])
    response = client_for(alice).post(url, {"reason": "", "note": "Typed <carefully>"})
    assert response.status_code == 400
    assert "Choose why you are skipping this post." in response.text
    assert "Typed &lt;carefully&gt;</textarea>" in response.text
    assert 'aria-invalid="true"' in response.text
    assert not Skip.objects.exists()
    alices_claim.refresh_from_db()
    assert alices_claim.state == Claim.State.ACTIVE


def test_skip_through_htmx_updates_in_place(alice, alices_claim, client_for):
    url = reverse("review:claim_skip", args=[alices_claim.pk])
    client = client_for(alice)
    bad = client.post(url, {"reason": "nope"}, **htmx_to("review-body"))
    assert bad.status_code == 200
    assert "Select a valid choice" in bad.text
    good = client.post(url, {"reason": "conflict_of_interest"}, **htmx_to("review-body"))
    assert "<html" not in good.text
    assert "Partner A will not see it again" in good.text
    assert "Skipped" in good.text
