from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from pytest_django.asserts import assertContains, assertNotContains

from factcheck.demotion.models import AuthorStanding, Demotion
from factcheck.moderation.models import Escalation, Removal, RemovalAppeal, Tier
from factcheck.partners.models import Membership
from factcheck.posts.models import Post
from factcheck.ratings.models import Rating
from tests.factories import (
    EscalationFactory,
    MembershipFactory,
    PartnerFactory,
    PostFactory,
    RatingFactory,
    UserFactory,
)
from tests.review.factories import ClaimFactory, SkipFactory

pytestmark = pytest.mark.django_db

DASHBOARD = reverse("dashboard:index")
HTMX_DISAGREEMENTS = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "disagreements"}


def rate(post, partner, verdict, *, checker=None, days_ago: float = 0, previous=None) -> Rating:
    """A stored rating ``days_ago`` old; with ``previous``, the partner's next version."""
    rating = RatingFactory(
        post=post,
        partner=partner,
        checker=checker,
        verdict=verdict,
        version=previous.version + 1 if previous else 1,
        supersedes=previous,
    )
    if days_ago:
        created_at = timezone.now() - timedelta(days=days_ago)
        Rating.objects.filter(pk=rating.pk).update(created_at=created_at)
        rating.created_at = created_at
    return rating


def demote(post, *, multiplier=0.2, verdict="false", removed=False) -> Demotion:
    now = timezone.now()
    return Demotion.objects.create(
        post=post,
        external_id=post.external_id,
        author_external_id=post.author_external_id,
        multiplier=0.0 if removed else multiplier,
        verdict=verdict,
        label="" if removed or verdict == "true" else verdict,
        removed=removed,
        effective_from=now,
        updated_at=now,
    )


def appeal(post, *, status=RemovalAppeal.Status.PENDING) -> RemovalAppeal:
    escalation = EscalationFactory(post=post, status="decided", action="remove")
    removal = Removal.objects.create(
        post=post,
        escalation=escalation,
        policy_code="violence.threat",
        previous_status=Post.Status.QUEUED,
    )
    return RemovalAppeal.objects.create(
        removal=removal, text="Quoted a film.", filed_by="platform", status=status
    )


@pytest.fixture
def partner_c(db):
    return PartnerFactory(name="Partner C", slug="partner-c", languages=["fr"])


@pytest.fixture
def lucas(partner_b):
    """Partner B's lead."""
    return MembershipFactory(
        user=UserFactory(email="lucas@example.com", name="Lucas"),
        partner=partner_b,
        role=Membership.Role.LEAD,
    ).user


# --- who sees what ----------------------------------------------------------------------------


def test_it_sends_anonymous_visitors_to_log_in(client_for):
    response = client_for(None).get(DASHBOARD)
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('login')}?next={DASHBOARD}"


def test_it_refuses_people_without_a_role_with_a_clear_message(client_for):
    nobody = UserFactory(email="nobody@example.com")
    response = client_for(nobody).get(DASHBOARD)
    assert response.status_code == 403
    assertContains(response, "has none of these roles", status_code=403)
    assertContains(response, "Ask an administrator", status_code=403)


@pytest.mark.parametrize(
    ("who", "sections"),
    [
        ("alice", {"own-title"}),
        ("bob", {"own-title"}),
        ("lena", {"own-title", "partner-title", "disagreements-title"}),
        ("moe", {"platform-title"}),
        ("ada", {"platform-title", "disagreements-title"}),
    ],
)
def test_it_shows_each_role_its_sections(who, sections, request, client_for):
    response = client_for(request.getfixturevalue(who)).get(DASHBOARD)
    assert response.status_code == 200
    every = {"own-title", "partner-title", "disagreements-title", "platform-title"}
    for section in every:
        assert (f'id="{section}"' in response.text) is (section in sections), section


@pytest.mark.parametrize("who", ["alice", "lena", "moe", "ada"])
def test_it_links_the_dashboard_in_the_header(who, request, client_for):
    response = client_for(request.getfixturevalue(who)).get(DASHBOARD)
    assertContains(response, f'<a href="{DASHBOARD}" aria-current="page">Dashboard</a>', html=True)


def test_it_shows_a_moderator_who_is_also_a_checker_both_sections(alice, moe, client_for):
    alice.groups.set(moe.groups.all())
    response = client_for(alice).get(DASHBOARD)
    assert 'id="own-title"' in response.text
    assert 'id="platform-title"' in response.text


# --- a checker's own figures ------------------------------------------------------------------


def test_it_shows_a_checker_their_own_figures(alice, anna, partner_a, bob, client_for):
    rate(PostFactory(), partner_a, "false", checker=alice, days_ago=1)
    rate(PostFactory(), partner_a, "true", checker=alice, days_ago=6)
    rate(PostFactory(), partner_a, "false", checker=alice, days_ago=20)
    rate(PostFactory(), partner_a, "false", checker=alice, days_ago=40)  # too old
    rate(PostFactory(), partner_a, "false", checker=anna)  # someone else's
    SkipFactory(partner=partner_a, checker=alice)
    ClaimFactory(partner=partner_a, checker=alice)
    ClaimFactory(  # its lease ran out: no longer live
        partner=partner_a,
        checker=alice,
        claimed_at=timezone.now() - timedelta(hours=1),
    )

    response = client_for(alice).get(DASHBOARD)

    me = response.context["me"]
    assert (me.ratings_7d, me.ratings_30d) == (2, 3)
    assert (me.skips_7d, me.skips_30d) == (1, 1)
    assert me.live_claims == 1
    assertContains(
        response,
        '<tr><th scope="row">Ratings submitted</th><td class="num">2</td>'
        '<td class="num">3</td></tr>',
        html=True,
    )
    assertContains(response, '<span class="status status-pending">1 live claim</span>', html=True)


def test_it_shows_a_checker_their_partners_queue_per_language(alice, partner_a, client_for):
    partner_a.languages = ["en", "pt-BR"]
    partner_a.save()
    PostFactory.create_batch(3, language="en")
    SkipFactory(post=PostFactory(language="en"), partner=partner_a)  # skipped: not waiting
    PostFactory(language="en", status=Post.Status.RATED)
    PostFactory(language="es")  # not partner A's language

    response = client_for(alice).get(DASHBOARD)

    queue = response.context["queue"]
    assert queue.total == 3
    assert queue.by_language == [("en", 3), ("pt", 0)]
    assertContains(response, "<strong>3</strong> posts waiting in the queue of Partner A")


def test_it_tells_a_new_checker_how_to_start(alice, client_for):
    response = client_for(alice).get(DASHBOARD)
    assertContains(response, "You have not rated a post yet.")
    assertContains(response, "press <kbd>n</kbd> to claim the most trending post")


# --- a partner lead ---------------------------------------------------------------------------


def test_it_shows_a_lead_their_members_and_not_another_partners(
    lena, alice, anna, bob, partner_a, client_for
):
    gone = MembershipFactory(
        partner=partner_a, user=UserFactory(email="gone@example.com", is_active=False)
    ).user
    rate(PostFactory(), partner_a, "false", checker=alice, days_ago=2)
    rate(PostFactory(), partner_a, "true", checker=alice, days_ago=10)
    ClaimFactory(partner=partner_a, checker=anna)

    response = client_for(lena).get(DASHBOARD)

    members = {m.user.email: m for m in response.context["members"]}
    assert set(members) == {alice.email, anna.email, lena.email, gone.email}
    assert (members[alice.email].ratings_7d, members[alice.email].ratings_30d) == (1, 2)
    assert members[alice.email].last_rated_at is not None
    assert members[anna.email].live_claims == 1
    assert members[anna.email].last_rated_at is None
    assert bob.email not in response.text
    assertContains(response, "Partner lead")
    assertContains(response, '<span class="status status-rated">Deactivated</span>', html=True)
    # Deactivated members come last.
    assert response.context["members"][-1].user == gone


def test_it_counts_a_members_ratings_for_the_lead_once_they_move_partner(
    lena, alice, partner_a, partner_b, client_for
):
    """A partner sees only its own statistics: ratings a member gave for another partner
    before moving are not the lead's to see."""
    rate(PostFactory(), partner_b, "false", checker=alice, days_ago=1)
    response = client_for(lena).get(DASHBOARD)
    members = {m.user.email: m for m in response.context["members"]}
    assert members[alice.email].ratings_30d == 0


def test_it_shows_a_lead_the_partners_ratings_by_verdict(lena, partner_a, partner_b, client_for):
    rate(PostFactory(), partner_a, "false", days_ago=1)
    rate(PostFactory(), partner_a, "false", days_ago=12)
    rate(PostFactory(), partner_a, "true", days_ago=3)
    rate(PostFactory(), partner_a, "false", days_ago=45)  # outside the 30 days
    rate(PostFactory(), partner_b, "altered", days_ago=1)  # another partner's

    response = client_for(lena).get(DASHBOARD)

    table = response.context["partner_verdicts"]
    counts = {row.verdict: row.counts for row in table.rows}
    assert counts["false"] == [1, 2]
    assert counts["true"] == [1, 1]
    assert counts["altered"] == [0, 0]
    assert table.totals == [2, 3]
    assertContains(response, "67%")  # false: 2 of the 30 days' 3


def test_it_tells_a_lead_with_no_ratings_what_comes(lena, client_for):
    response = client_for(lena).get(DASHBOARD)
    assertContains(response, "No rating submitted in the last 30 days.")
    assertContains(response, "No disagreements")


def test_it_shows_a_suspended_partners_lead_the_suspension(lena, partner_a, client_for):
    partner_a.status = partner_a.Status.SUSPENDED
    partner_a.save()
    response = client_for(lena).get(DASHBOARD)
    assert response.status_code == 200
    assertContains(response, '<span class="status status-removed">Suspended</span>', html=True)


# --- disagreements ----------------------------------------------------------------------------


@pytest.fixture
def disputed(partner_a, partner_b, partner_c):
    """ab: A false, B true. bc: B false, C true. agreed: A and B false. corrected: A said
    false, then true, as B did. alone: only A rated it."""
    posts = {
        name: PostFactory(external_id=name, text=f"The {name} post")
        for name in ["ab", "bc", "agreed", "corrected", "alone"]
    }
    rate(posts["ab"], partner_a, "false", days_ago=1)
    rate(posts["ab"], partner_b, "true", days_ago=0.5)
    rate(posts["bc"], partner_b, "false", days_ago=2)
    rate(posts["bc"], partner_c, "true", days_ago=2)
    rate(posts["agreed"], partner_a, "false")
    rate(posts["agreed"], partner_b, "false")
    first = rate(posts["corrected"], partner_a, "false", days_ago=3)
    rate(posts["corrected"], partner_a, "true", previous=first)
    rate(posts["corrected"], partner_b, "true")
    rate(posts["alone"], partner_a, "false")
    return posts


def listed(response) -> list[str]:
    return [item.post.external_id for item in response.context["disagreements"].object_list]


def test_it_shows_a_lead_the_disagreements_their_partner_is_part_of(lena, disputed, client_for):
    response = client_for(lena).get(DASHBOARD)
    assert listed(response) == ["ab"]
    (item,) = response.context["disagreements"].object_list
    assert [(r.partner.name, r.verdict) for r in item.ratings] == [
        ("Partner A", "false"),
        ("Partner B", "true"),
    ]
    assertContains(response, f'href="{reverse("review:review", args=["ab"])}"')
    assertContains(response, "The ab post")
    assertContains(response, "Partner A <strong>(yours)</strong>")
    assertNotContains(response, "The bc post")
    assertContains(response, "Disagreements: 1 post")


def test_it_shows_the_other_partners_lead_the_same_disagreement(lucas, disputed, client_for):
    response = client_for(lucas).get(DASHBOARD)
    # Partner B is part of both; the most recently rated first.
    assert listed(response) == ["ab", "bc"]


def test_it_shows_an_admin_every_disagreement(ada, disputed, client_for):
    response = client_for(ada).get(DASHBOARD)
    assert listed(response) == ["ab", "bc"]
    # An admin is no checker: the link goes to the post in the admin site.
    post = disputed["bc"]
    assertContains(response, f'href="{reverse("admin:posts_post_change", args=[post.pk])}"')


def test_it_shows_checkers_no_disagreements(bob, disputed, client_for):
    response = client_for(bob).get(DASHBOARD)
    assert "disagreements" not in response.context
    assertNotContains(response, "The ab post")


def test_it_pages_disagreements_fifty_at_a_time(ada, partner_a, partner_b, client_for):
    for n in range(51):
        post = PostFactory(external_id=f"d{n}", text=f"Disputed number {n}")
        rate(post, partner_a, "false", days_ago=n + 1)
        rate(post, partner_b, "true", days_ago=n + 1)

    first = client_for(ada).get(DASHBOARD)
    assert len(listed(first)) == 50
    assert listed(first)[0] == "d0"
    assertContains(first, "Page 1 of 2")
    assertContains(first, 'href="?page=2"')

    second = client_for(ada).get(DASHBOARD, {"page": 2})
    assert listed(second) == ["d50"]


def test_it_answers_htmx_with_the_disagreements_alone(ada, disputed, client_for):
    response = client_for(ada).get(DASHBOARD, **HTMX_DISAGREEMENTS)
    assert response.status_code == 200
    assert response.text.lstrip().startswith('<section id="disagreements"')
    assertContains(response, "The ab post")
    assertNotContains(response, "<html")
    assertNotContains(response, "platform-title")


def test_it_escapes_post_text(lena, partner_a, partner_b, client_for):
    post = PostFactory(text='<script>alert("x")</script><b>bold</b>')
    rate(post, partner_a, "false")
    rate(post, partner_b, "true")
    response = client_for(lena).get(DASHBOARD)
    assert "<script>alert" not in response.text
    assert "<b>bold</b>" not in response.text
    assertContains(response, "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;b&gt;bold")


# --- the platform -----------------------------------------------------------------------------


def test_it_shows_moderators_the_platform_figures(moe, partner_a, partner_b, client_for):
    now = timezone.now()
    PostFactory.create_batch(2, language="en")
    PostFactory(language="es")
    PostFactory(language="es", status=Post.Status.IN_REVIEW)
    rated = [PostFactory(status=Post.Status.RATED) for _ in range(3)]
    removed = PostFactory(status=Post.Status.REMOVED)
    rate(rated[0], partner_a, "false", days_ago=0.5)
    rate(rated[1], partner_b, "false", days_ago=3)
    rate(rated[2], partner_b, "true", days_ago=3)
    rate(PostFactory(status=Post.Status.RATED), partner_a, "false", days_ago=9)  # too old
    demote(rated[0])
    demote(rated[1], multiplier=0.5, verdict="partly_false")
    demote(rated[2], multiplier=1.0, verdict="true")  # listed nowhere: full reach
    demote(removed, removed=True)
    AuthorStanding.objects.create(
        author_external_id="author-x", strikes=4, multiplier=0.5, penalty_until=now
    )
    AuthorStanding.objects.create(author_external_id="author-y", strikes=1, multiplier=1.0)
    EscalationFactory(tier=Tier.URGENT, sla_due_at=now - timedelta(minutes=5))
    EscalationFactory(tier=Tier.URGENT, sla_due_at=now + timedelta(minutes=30))
    EscalationFactory(tier=Tier.HIGH)
    EscalationFactory(tier=Tier.NORMAL, status=Escalation.Status.DECIDED, action="keep")
    appeal(removed)

    response = client_for(moe).get(DASHBOARD)

    platform = response.context["platform"]
    by_status = {status: n for status, _, n in platform["posts"].by_status}
    assert by_status == {
        "queued": 3 + 4,  # and the posts of the 4 escalations, queued as made
        "in_review": 1,
        "rated": 4,
        "ineligible": 0,
        "removed": 1,
    }
    assert platform["posts"].queued_by_language[0] == ("en", 6)
    assert ("es", 1) in platform["posts"].queued_by_language
    verdicts = {row.verdict: row.counts for row in platform["verdicts"].rows}
    assert verdicts["false"] == [1, 2]
    assert verdicts["true"] == [0, 1]
    demotions = platform["demotions"]
    assert (demotions.demoted, demotions.removed, demotions.labelled) == (2, 1, 2)
    assert platform["authors"].total == 1
    assert [a.author_external_id for a in platform["authors"].shown] == ["author-x"]
    tiers = {row.tier: (row.open, row.overdue) for row in platform["escalations"].tiers}
    assert tiers == {Tier.URGENT: (2, 1), Tier.HIGH: (1, 0), Tier.NORMAL: (0, 0)}
    assert platform["appeals"].pending == 1
    assertContains(response, '<span class="status status-urgent">1 overdue</span>', html=True)
    assertContains(response, f'href="{reverse("moderation:queue")}?tier=urgent"')
    assertContains(response, f'href="{reverse("moderation:appeals")}"')


def test_it_tells_moderators_when_nothing_waits(moe, client_for):
    response = client_for(moe).get(DASHBOARD)
    assertContains(response, "No post is escalated right now.")
    assertContains(response, "None pending")
    assertContains(response, "No post is waiting in any language")


def test_it_gives_admins_without_the_moderator_role_no_moderation_links(ada, client_for):
    EscalationFactory(tier=Tier.URGENT)
    response = client_for(ada).get(DASHBOARD)
    assertNotContains(response, f'href="{reverse("moderation:queue")}?tier=')


# --- cost -------------------------------------------------------------------------------------


def populate(size: int, partner_a, partner_b, alice, *, batch: str) -> None:
    """``size`` of everything the dashboard counts."""
    for n in range(size):
        post = PostFactory(language="en" if n % 2 else "es")
        rate(post, partner_a, "false", checker=alice, days_ago=n % 10)
        rate(post, partner_b, "true" if n % 3 else "false", days_ago=n % 10)
        demote(post)
        EscalationFactory(post=post, tier=Tier.URGENT if n % 2 else Tier.NORMAL)
        SkipFactory(post=PostFactory(), partner=partner_a, checker=alice)
        AuthorStanding.objects.create(author_external_id=f"{batch}-{n}", strikes=3, multiplier=0.5)
        MembershipFactory(partner=partner_a)
    ClaimFactory(partner=partner_a, checker=alice)
    appeal(PostFactory(status=Post.Status.REMOVED))


@pytest.mark.parametrize(
    ("who", "queries"),
    [
        # session, user, membership, moderator group; own figures (subqueries per figure);
        # queue waiting per language.
        ("alice", 6),
        # session, user, membership, moderator group; disagreements: count, page, their
        # latest ratings; queue waiting; members with their figures; ratings by verdict.
        ("lena", 10),
        # session, user, membership, moderator group; posts by status and language; ratings
        # by verdict; demotions; penalised authors; escalations by tier; appeals; the
        # header's open escalation count.
        ("moe", 11),
        # session, user, membership, moderator group; disagreements: count, page, their
        # latest ratings; the six platform figures.
        ("ada", 13),
    ],
)
def test_it_costs_the_same_queries_however_much_data(
    who, queries, request, partner_a, partner_b, alice, client_for, django_assert_num_queries
):
    client = client_for(request.getfixturevalue(who))
    populate(2, partner_a, partner_b, alice, batch="small")
    with django_assert_num_queries(queries):
        small = client.get(DASHBOARD)
    populate(30, partner_a, partner_b, alice, batch="large")
    with django_assert_num_queries(queries):
        large = client.get(DASHBOARD)
    assert small.status_code == large.status_code == 200
    if who in {"lena", "ada"}:
        assert len(listed(large)) > len(listed(small))
