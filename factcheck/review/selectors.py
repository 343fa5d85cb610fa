"""Reads for the queue and the review page. Every list here costs a fixed number of queries,
however many posts are queued."""

from dataclasses import dataclass, field

from django.core.paginator import Page, Paginator
from django.db.models import Exists, F, OuterRef, QuerySet, Window
from django.db.models.functions import RowNumber
from django.http import Http404
from django.utils import timezone

from factcheck.demotion.selectors import demotion_state
from factcheck.partners.models import Partner, User
from factcheck.posts.models import EngagementSnapshot, Post
from factcheck.ratings.models import Rating
from factcheck.review.models import Claim, Skip
from factcheck.review.services import partner_languages

QUEUE_PAGE_SIZE = 50
SPARKLINE_POINTS = 12
CHART_POINTS = 200


def queue_posts(*, partner: Partner) -> QuerySet[Post]:
    """Queued posts in the partner's languages that it has not skipped, most trending first
    (the order claim_next takes them in; id breaks ties so pages never overlap)."""
    skipped = Skip.objects.filter(post=OuterRef("pk"), partner=partner)
    return (
        Post.objects.filter(status=Post.Status.QUEUED, language__in=partner_languages(partner))
        .exclude(Exists(skipped))
        .order_by("-trending_score", "id")
    )


def queue_page(*, partner: Partner, page_number, per_page: int = QUEUE_PAGE_SIZE) -> Page:
    """One page of the queue, each post with ``sparkline``: its shares at its last snapshots,
    oldest first. Three queries: the count, the page, the snapshots of the page."""
    paginator = Paginator(
        queue_posts(partner=partner).only(
            "external_id",
            "author_external_id",
            "author_name",
            "text",
            "language",
            "language_tag",
            "published_at",
            "shares",
            "trending_score",
            "status",
        ),
        per_page,
    )
    page = paginator.get_page(page_number)
    posts = list(page.object_list)
    series = shares_series(post_ids=[post.pk for post in posts], points=SPARKLINE_POINTS)
    for post in posts:
        post.sparkline = series.get(post.pk, [])
    page.object_list = posts
    return page


def shares_series(*, post_ids: list[int], points: int) -> dict[int, list[int]]:
    """The shares of each post's last ``points`` snapshots, oldest first, in one query."""
    if not post_ids:
        return {}
    rows = (
        EngagementSnapshot.objects.filter(post_id__in=post_ids)
        .annotate(
            recency=Window(RowNumber(), partition_by=F("post_id"), order_by=F("observed_at").desc())
        )
        .filter(recency__lte=points)
        .order_by("post_id", "observed_at")
        .values_list("post_id", "shares")
    )
    series: dict[int, list[int]] = {}
    for post_id, shares in rows:
        series.setdefault(post_id, []).append(shares)
    return series


def live_claims(*, user: User) -> list[Claim]:
    """The checker's claims that still hold their post, soonest to expire first."""
    return list(
        Claim.objects.live()
        .filter(checker=user)
        .select_related("post")
        .only(
            "claimed_at",
            "expires_at",
            "state",
            "checker_id",
            "partner_id",
            "post__external_id",
            "post__text",
            "post__language",
            "post__author_name",
        )
        .order_by("expires_at")
    )


def claim_for_user(*, claim_id: int, user: User) -> Claim:
    """The user's own claim; anyone else's is a 404 (DESIGN §2: never confirm it exists)."""
    claim = Claim.objects.select_related("post").filter(pk=claim_id, checker=user).first()
    if claim is None:
        raise Http404("No such claim.")
    return claim


def post_by_external_id(external_id: str) -> Post:
    post = Post.objects.filter(external_id=external_id).first()
    if post is None:
        raise Http404("No such post.")
    return post


@dataclass
class ReviewState:
    """What the review page shows about who holds the post, seen from ``user``."""

    post: Post
    claim: Claim | None  # the active claim, only when the viewer's partner may see it
    is_holder: bool
    held_by_other_partner: bool
    skipped_by_partner: Skip | None
    snapshots: list[EngagementSnapshot] = field(default_factory=list)
    author_ratings: list[Rating] = field(default_factory=list)
    demotion: dict | None = None

    @property
    def live_claim(self) -> Claim | None:
        return self.claim if self.claim and self.claim.is_live() else None


def review_state(*, post: Post, user: User, partner: Partner) -> ReviewState:
    now = timezone.now()
    active = (
        Claim.objects.filter(post=post, state=Claim.State.ACTIVE).select_related("checker").first()
    )
    # A lease past its time is free: the page treats it as if it had ended already.
    if active is not None and not active.is_live(now):
        active = None
    own_partner = active is not None and active.partner_id == partner.pk
    return ReviewState(
        post=post,
        claim=active if own_partner else None,
        is_holder=own_partner and active.checker_id == user.pk,
        held_by_other_partner=active is not None and not own_partner,
        skipped_by_partner=Skip.objects.filter(post=post, partner=partner).first(),
        snapshots=engagement_history(post=post),
        author_ratings=author_ratings(post=post),
        demotion=demotion_for(post=post),
    )


def demotion_for(*, post: Post) -> dict | None:
    """The demotion panel's state: None (never rated), "pending", "applied" or "none"."""
    return demotion_state(post=post)


def own_active_claim(*, post: Post, user: User) -> Claim | None:
    """The user's active claim on the post (its lease may have run out: rating_submit says so)."""
    return (
        Claim.objects.filter(post=post, checker=user, state=Claim.State.ACTIVE)
        .select_related("post", "partner")
        .first()
    )


def engagement_history(*, post: Post, points: int = CHART_POINTS) -> list[EngagementSnapshot]:
    """The post's latest snapshots, oldest first."""
    latest = list(
        EngagementSnapshot.objects.filter(post=post)
        .order_by("-observed_at")
        .only("observed_at", "shares", "views", "comments", "reactions")[:points]
    )
    latest.reverse()
    return latest


def author_ratings(*, post: Post, limit: int = 20) -> list[Rating]:
    """The latest rating of each partner on the author's other posts, newest first."""
    if not post.author_external_id:
        return []
    newer = Rating.objects.filter(
        post=OuterRef("post"), partner=OuterRef("partner"), version__gt=OuterRef("version")
    )
    return list(
        Rating.objects.filter(post__author_external_id=post.author_external_id)
        .exclude(post=post)
        .exclude(Exists(newer))
        .select_related("post", "partner")
        .only(
            "verdict",
            "headline",
            "article_url",
            "version",
            "created_at",
            "post__external_id",
            "post__text",
            "partner__name",
        )
        .order_by("-created_at", "-id")[:limit]
    )
