"""From a fact-checker's flag to a removal the ranker sees, in Chromium: the checker rates a
post and ticks "Advocates violence", the moderator finds it in the queue, claims it and
removes it, and the ranker lookup answers removed."""

import json
import re

import pytest
from playwright.sync_api import expect

from factcheck.moderation.models import Escalation, Removal
from tests.conftest import PASSWORD
from tests.factories import EscalationFactory, PostFactory, make_token

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TEXT = "<b>Friday</b> we go to the mosque with guns. Be there."


def test_it_takes_a_flagged_post_from_checker_to_removal(
    page, browser, live_server, log_in, alice, moe
):
    PostFactory(external_id="p-flag", text=TEXT, trending_score=500)

    # The checker: claim, rate, flag.
    log_in(alice)
    page.goto("/queue/")
    page.get_by_role("button", name=re.compile("Claim next post")).click()
    expect(page).to_have_url(re.compile(r"/review/p-flag/$"))
    page.get_by_label("False", exact=True).check()
    page.get_by_label("Headline").fill("A call to armed violence, not a claim of fact")
    page.get_by_label("Fact-check article URL").fill("https://factcheck.example/a/1")
    page.get_by_label("Advocates violence").check()
    page.get_by_role("button", name="Submit rating").click()
    expect(page.get_by_text(re.compile("Rated post p-flag"))).to_be_visible()

    escalation = Escalation.objects.get(post__external_id="p-flag")
    assert escalation.tier == 2  # a checker's flag: tier high

    # The moderator, in a browser of their own.
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 800})
    moderator = context.new_page()
    moderator.set_default_timeout(15_000)
    moderator.goto("/accounts/login/")
    moderator.get_by_label("Email").fill(moe.email)
    moderator.get_by_label("Password").fill(PASSWORD)
    moderator.get_by_role("button", name="Log in").click()

    moderator.goto("/moderation/")
    badge = moderator.locator("#moderation-pending")
    expect(badge).to_contain_text("1")
    row = moderator.get_by_role("row").filter(has_text="p-flag")
    expect(row).to_contain_text("High")
    expect(row).to_contain_text(TEXT)  # escaped, shown as text
    row.get_by_role("button", name=re.compile("Claim")).click()
    expect(moderator.get_by_text(re.compile(r"Escalation #\d+ is yours until"))).to_be_visible()
    expect(moderator.locator(".post-text").first).to_have_text(TEXT)
    flag = moderator.get_by_text(re.compile(r"Alice \(Partner A\) flagged the post"))
    expect(flag).to_be_visible()

    # Remove without a note: refused next to the field, nothing removed.
    moderator.get_by_label("Policy").select_option("violence.call_to_action")
    moderator.get_by_role("button", name="Remove", exact=True).click()
    expect(moderator.get_by_text("Remove and Refer need a note.")).to_be_visible()
    assert not Removal.objects.exists()

    moderator.get_by_label("Policy").select_option("violence.call_to_action")
    moderator.get_by_label("Note").fill("Calls people to bring guns to a mosque on Friday.")
    moderator.get_by_role("button", name="Remove", exact=True).click()
    done = moderator.get_by_text("Removed post p-flag under Violence: call to action.")
    expect(done).to_be_visible()
    expect(moderator.get_by_text("Nothing to decide")).to_be_visible()

    # The ranker, over HTTP.
    token = make_token("demotions:read", name="ranker")
    response = moderator.request.post(
        f"{live_server.url}/api/v1/demotions/lookup",
        data=json.dumps({"post_ids": ["p-flag"]}),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    assert response.status == 200
    assert response.json()["demotions"]["p-flag"]["removed"] is True
    assert response.json()["demotions"]["p-flag"]["multiplier"] == 0
    context.close()


def test_it_filters_the_queue_in_place_and_counts_in_the_header(page, log_in, moe):
    EscalationFactory(tier=3, post__external_id="p-urgent", post__text="Urgent one")
    EscalationFactory(tier=1, post__external_id="p-normal", post__text="Normal one")
    log_in(moe)
    page.goto("/moderation/")
    expect(page.locator("#moderation-pending")).to_contain_text("2")
    expect(page.get_by_role("heading", name="Open: 2 escalations")).to_be_visible()

    page.get_by_label("Tier").select_option("urgent")  # htmx swaps the results on change
    expect(
        page.get_by_role("heading", name="Open: 1 escalation matching the filters")
    ).to_be_visible()
    expect(page).to_have_url(re.compile(r"/moderation/\?tier=urgent"))
    expect(page.get_by_text("Normal one")).to_have_count(0)

    page.keyboard.press("o")  # opens the first escalation
    expect(page).to_have_url(re.compile(r"/moderation/\d+/$"))
    expect(page.locator(".post-text").first).to_have_text("Urgent one")
