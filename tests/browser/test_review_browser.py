"""A fact-checker's day, in Chromium: the queue, Claim next (button and the n key), the post,
Release."""

import re

import pytest
from playwright.sync_api import expect

from factcheck.review.models import Claim
from tests.factories import PostFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_it_claims_reads_and_releases_from_the_queue(page, log_in, alice):
    PostFactory(external_id="top-1", text="<b>Miracle cure</b> spreads fast", trending_score=90)
    PostFactory(external_id="next-2", text="Second rumour of the day", trending_score=10)
    log_in(alice)

    page.goto("/queue/")
    expect(page.get_by_role("heading", name=re.compile("Waiting: 2 posts"))).to_be_visible()
    page.get_by_role("button", name=re.compile("Claim next post")).click()

    expect(page).to_have_url(re.compile(r"/review/top-1/$"))
    expect(page.locator(".post-text")).to_have_text("<b>Miracle cure</b> spreads fast")
    expect(page.get_by_text("You claimed this post for 20 minutes")).to_be_visible()
    page.get_by_role("button", name="Release back to the queue").click()

    # htmx swapped the page in place: the notice, no claim controls, Claim next one key away.
    expect(page.get_by_text("Released post top-1: it is back in the queue.")).to_be_visible()
    expect(page.get_by_role("button", name="Release back to the queue")).to_have_count(0)
    assert Claim.objects.get().state == Claim.State.RELEASED

    page.goto("/queue/")
    page.keyboard.press("n")
    expect(page).to_have_url(re.compile(r"/review/top-1/$"))
    expect(page.get_by_role("button", name="Skip this post")).to_be_visible()


def test_it_shows_the_shortcuts_on_question_mark(page, log_in, alice):
    log_in(alice)
    page.goto("/queue/")
    page.keyboard.press("?")
    dialog = page.get_by_role("dialog", name="Keyboard shortcuts")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("Claim the next post")


def test_it_rates_a_post_false_and_sees_it_demoted(page, log_in, alice):
    PostFactory(
        external_id="hoax-1", text="The moon landing was filmed in a mall", trending_score=50
    )
    log_in(alice)
    page.goto("/queue/")
    page.keyboard.press("n")
    expect(page).to_have_url(re.compile(r"/review/hoax-1/$"))

    page.get_by_label("False", exact=True).check()
    page.get_by_label("Headline").fill("No, the landing was not filmed in a mall")
    # A failed submit first: the article URL is missing, and what was typed stays.
    page.get_by_role("button", name="Submit rating").click()
    expect(page.get_by_text("needs the URL of the fact-check article")).to_be_visible()
    expect(page.get_by_label("Headline")).to_have_value("No, the landing was not filmed in a mall")

    page.get_by_label("Fact-check article URL").fill("https://factcheck.example/moon-mall")
    page.get_by_role("button", name="Submit rating").click()

    expect(page).to_have_url(re.compile(r"/queue/$"))
    expect(page.get_by_text("Rated post hoax-1 “False”")).to_be_visible()
    page.goto("/review/hoax-1/")
    expect(page.locator("#demotion-panel")).to_contain_text(re.compile("applied ×0.2", re.I))
