"""Reads for the dashboard. Every figure is one aggregate query (per-row figures are
subqueries of that query), so the page costs the same number of queries however many posts,
ratings, members and disagreements there are.

A partner's figures only ever count rows of that partner (DESIGN §2: a partner sees only its
own statistics)."""

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.core.paginator import Page, Paginator
from django.db.models import (
    Count,
    Exists,
    F,
    Func,
    IntegerField,
    Max,
    Min,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Window,
)
from django.db.models.functions import Coalesce
from django.utils import timezone

from factcheck.demotion.models import AuthorStanding, Demotion
from factcheck.demotion.services import strike_window, strikes_for_penalty
from factcheck.moderation.models import Escalation, RemovalAppeal, Tier
from factcheck.partners.models import Membership, Partner
from factcheck.posts.models import Post
from factcheck.ratings.models import VERDICT_SEVERITY, Rating, Verdict
from factcheck.review.models import Claim, Skip
from factcheck.review.selectors import queue_posts
from factcheck.review.services import partner_languages

DISAGREEMENTS_PAGE_SIZE = 50
PENALISED_AUTHORS_SHOWN = 10

# The stylesheet's status classes for each verdict: red for what demotes most, amber for
# partial findings, blue for labels that do not demote, green for true, grey for no finding.
VERDICT_TONE = {
    Verdict.FALSE: "status-false",
    Verdict.ALTERED: "status-altered",
    Verdict.PARTLY_FALSE: "status-partly_false",
    Verdict.MISSING_CONTEXT: "status-normal",
    Verdict.SATIRE: "status-normal",
    Verdict.TRUE: "status-true",
    Verdict.NOT_ELIGIBLE: "status-ineligible",
}


def _since(now: datetime, days: float) -> datetime:
    return now - timedelta(days=days)


def _latest_ratings() -> QuerySet[Rating]:
    """Each partner's latest rating of each post: the versions nothing supersedes. NOT EXISTS
    rather than the reverse one-to-one's LEFT JOIN … IS NULL, which PostgreSQL plans as a
    nested loop over every rating (twice as slow on the disagreements page)."""
    return Rating.objects.filter(~Exists(Rating.objects.filter(supersedes=OuterRef("pk"))))


# --- a checker's and a partner's members' figures ---------------------------------------------


def _count_of(queryset: QuerySet) -> Coalesce:
    """A correlated COUNT(*) of ``queryset`` (already filtered on OuterRef), 0 when empty."""
    # COUNT as a plain function, not an aggregate: the subquery needs no GROUP BY.
    counted = queryset.order_by().annotate(n=Func(F("pk"), function="COUNT")).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), 0)


def _members_with_figures(memberships: QuerySet[Membership], now: datetime):
    """Memberships with each member's work for their partner: ratings submitted and posts
    skipped in the last 7 and 30 days, live claims, and the time of their latest rating."""
    own = {"checker": OuterRef("user"), "partner": OuterRef("partner")}
    ratings = Rating.objects.filter(**own)
    skips = Skip.objects.filter(**own)
    return (
        memberships.select_related("user")
        .only(
            "role",
            "partner_id",
            "user__email",
            "user__name",
            "user__is_active",
        )
        .annotate(
            ratings_7d=_count_of(ratings.filter(created_at__gte=_since(now, 7))),
            ratings_30d=_count_of(ratings.filter(created_at__gte=_since(now, 30))),
            skips_7d=_count_of(skips.filter(created_at__gte=_since(now, 7))),
            skips_30d=_count_of(skips.filter(created_at__gte=_since(now, 30))),
            live_claims=_count_of(Claim.objects.live(now).filter(**own)),
            last_rated_at=Subquery(
                ratings.order_by("-created_at").values("created_at")[:1],
            ),
        )
    )


def checker_figures(*, membership: Membership, now: datetime | None = None) -> Membership:
    """The checker's own membership with the figures of ``_members_with_figures``."""
    now = now or timezone.now()
    return _members_with_figures(Membership.objects.filter(pk=membership.pk), now).get()


def partner_members(*, partner: Partner, now: datetime | None = None) -> list[Membership]:
    """The partner's members with their figures: active people first, then by name."""
    now = now or timezone.now()
    return list(
        _members_with_figures(Membership.objects.filter(partner=partner), now).order_by(
            "-user__is_active", "user__name", "user__email"
        )
    )


@dataclass(frozen=True)
class QueueWaiting:
    total: int
    by_language: list[tuple[str, int]]


def partner_queue_waiting(*, partner: Partner) -> QueueWaiting:
    """Posts waiting in the partner's queue (its languages, less what it skipped), per
    language; each of the partner's languages is listed, even with nothing waiting."""
    counts = dict.fromkeys(partner_languages(partner), 0)
    rows = queue_posts(partner=partner).order_by().values_list("language").annotate(n=Count("pk"))
    for language, n in rows:
        counts[language] = n
    return QueueWaiting(total=sum(counts.values()), by_language=sorted(counts.items()))


# --- ratings by verdict -------------------------------------------------------------------


@dataclass(frozen=True)
class VerdictRow:
    verdict: str
    label: str
    counts: list[int]
    share: float | None  # of the widest window's ratings; None when there are none

    @property
    def tone(self) -> str:
        return VERDICT_TONE[self.verdict]


@dataclass(frozen=True)
class VerdictTable:
    """Ratings submitted per verdict in a few windows (each column counts from now back)."""

    columns: list[str]
    rows: list[VerdictRow]
    totals: list[int]

    @property
    def is_empty(self) -> bool:
        return not any(self.totals)


def _ratings_by_verdict(
    ratings: QuerySet[Rating], windows: list[tuple[str, datetime]]
) -> VerdictTable:
    """One GROUP BY verdict over the last (widest) of ``windows``, (label, since) from the
    narrowest, with a filtered count per window. Every verdict is a row, most severe first,
    so tables compare at a glance; the share is of the widest window."""
    aggregates = {
        f"w{i}": Count("pk", filter=Q(created_at__gte=since))
        for i, (_, since) in enumerate(windows)
    }
    rows = (
        ratings.filter(created_at__gte=windows[-1][1])
        .order_by()
        .values("verdict")
        .annotate(**aggregates)
    )
    found = {row["verdict"]: [row[key] for key in aggregates] for row in rows}
    zero = [0] * len(windows)
    totals = [sum(column) for column in zip(*found.values(), strict=True)] or zero
    return VerdictTable(
        columns=[label for label, _ in windows],
        rows=[
            VerdictRow(
                verdict=verdict,
                label=label,
                counts=found.get(verdict, zero),
                share=found.get(verdict, zero)[-1] / totals[-1] if totals[-1] else None,
            )
            for verdict, label in Verdict.choices
        ],
        totals=totals,
    )


def partner_ratings_by_verdict(*, partner: Partner, now: datetime | None = None) -> VerdictTable:
    """Every rating the partner submitted (corrections count: each is a new submission)."""
    now = now or timezone.now()
    return _ratings_by_verdict(
        Rating.objects.filter(partner=partner),
        [("Last 7 days", _since(now, 7)), ("Last 30 days", _since(now, 30))],
    )


def platform_ratings_by_verdict(*, now: datetime | None = None) -> VerdictTable:
    now = now or timezone.now()
    return _ratings_by_verdict(
        Rating.objects.all(),
        [("Last 24 hours", _since(now, 1)), ("Last 7 days", _since(now, 7))],
    )


# --- disagreements --------------------------------------------------------------------------


@dataclass
class Disagreement:
    """A post whose partners' latest verdicts differ; ``ratings`` are those latest ratings,
    most severe first (the first is the effective verdict)."""

    post: Post
    ratings: list[Rating]
    last_rated_at: datetime


def disagreements(*, partner: Partner | None = None) -> QuerySet:
    """Posts where partners' latest verdicts differ, the most recently rated first, as
    ``{"post", "verdicts", "last_rated_at"}`` rows. With ``partner``, only those where that
    partner's latest verdict is one of them: with two or more verdicts among the latest
    ratings, the partner's own differs from at least one other partner's."""
    latest = _latest_ratings()
    if partner is not None:
        # Every partner that rated a post has exactly one latest rating of it.
        latest = latest.filter(post__in=Rating.objects.filter(partner=partner).values("post"))
    return (
        latest.order_by()
        .values("post")
        .annotate(verdicts=Count("verdict", distinct=True), last_rated_at=Max("created_at"))
        .filter(verdicts__gt=1)
        .order_by("-last_rated_at", "-post")
    )


def disagreements_page(
    *, partner: Partner | None = None, page_number=None, per_page: int = DISAGREEMENTS_PAGE_SIZE
) -> Page:
    """One page of ``disagreements`` as ``Disagreement`` objects. Three queries: the count,
    the page of post ids, the latest ratings of those posts with their posts and partners."""
    page = Paginator(disagreements(partner=partner), per_page).get_page(page_number)
    rows = list(page.object_list)
    by_post: dict[int, list[Rating]] = {row["post"]: [] for row in rows}
    if by_post:
        ratings = (
            _latest_ratings()
            .filter(post_id__in=list(by_post))
            .select_related("post", "partner")
            .only(
                "verdict",
                "version",
                "created_at",
                "post_id",
                "partner_id",
                "post__external_id",
                "post__text",
                "post__language",
                "post__status",
                "partner__name",
            )
        )
        for rating in ratings:
            rating.tone = VERDICT_TONE[rating.verdict]
            by_post[rating.post_id].append(rating)
    items = []
    for row in rows:
        ratings = sorted(
            by_post[row["post"]],
            key=lambda r: (VERDICT_SEVERITY[r.verdict], r.partner.name),
        )
        if ratings:  # a post deleted between the two queries has none
            items.append(Disagreement(ratings[0].post, ratings, row["last_rated_at"]))
    page.object_list = items
    return page


# --- the platform ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PostFigures:
    by_status: list[tuple[str, str, int]]  # (status, label, count), in workflow order
    queued_by_language: list[tuple[str, int]]  # most waiting first
    total: int


def platform_posts() -> PostFigures:
    """Posts per status and queued posts per language, from one GROUP BY."""
    by_status = dict.fromkeys(Post.Status.values, 0)
    queued: dict[str, int] = {}
    rows = Post.objects.order_by().values_list("status", "language").annotate(n=Count("pk"))
    for status, language, n in rows:
        by_status[status] = by_status.get(status, 0) + n
        if status == Post.Status.QUEUED:
            queued[language] = n
    labels = dict(Post.Status.choices)
    return PostFigures(
        by_status=[(status, labels.get(status, status), n) for status, n in by_status.items()],
        queued_by_language=sorted(queued.items(), key=lambda item: (-item[1], item[0])),
        total=sum(by_status.values()),
    )


@dataclass(frozen=True)
class DemotionFigures:
    demoted: int  # multiplier below 1, still distributed
    removed: int
    labelled: int  # a label shown in the feed, whatever the multiplier


def platform_demotions() -> DemotionFigures:
    # Aliases unlike the field names: an aggregate may not shadow a field it filters on.
    figures = Demotion.objects.aggregate(
        n_demoted=Count("pk", filter=Q(multiplier__lt=1, removed=False)),
        n_removed=Count("pk", filter=Q(removed=True)),
        n_labelled=Count("pk", filter=~Q(label="") & Q(removed=False)),
    )
    return DemotionFigures(
        demoted=figures["n_demoted"], removed=figures["n_removed"], labelled=figures["n_labelled"]
    )


@dataclass(frozen=True)
class PenalisedAuthors:
    total: int
    shown: list[AuthorStanding]  # the most strikes first
    strikes_needed: int
    window_days: int


def penalised_authors(*, limit: int = PENALISED_AUTHORS_SHOWN) -> PenalisedAuthors:
    """Authors whose posts carry the repeat-offender multiplier now, in one query: the window
    count carries the total past the limit, a subquery the author's latest display name."""
    name = (
        Post.objects.filter(author_external_id=OuterRef("author_external_id"))
        .order_by("-published_at")
        .values("author_name")[:1]
    )
    shown = list(
        AuthorStanding.objects.filter(multiplier__lt=1)
        .annotate(total=Window(Count("pk")), author_name=Subquery(name))
        .order_by("-strikes", "author_external_id")[:limit]
    )
    return PenalisedAuthors(
        total=shown[0].total if shown else 0,
        shown=shown,
        strikes_needed=strikes_for_penalty(),
        window_days=strike_window().days,
    )


@dataclass(frozen=True)
class TierFigures:
    tier: Tier
    open: int
    overdue: int


@dataclass(frozen=True)
class EscalationFigures:
    tiers: list[TierFigures] = field(default_factory=list)  # most severe first

    @property
    def open(self) -> int:
        return sum(t.open for t in self.tiers)

    @property
    def overdue(self) -> int:
        return sum(t.overdue for t in self.tiers)


def open_escalations(*, now: datetime | None = None) -> EscalationFigures:
    """Open escalations per tier, with those past their SLA."""
    now = now or timezone.now()
    rows = (
        Escalation.objects.filter(status=Escalation.Status.OPEN)
        .order_by()
        .values_list("tier")
        .annotate(n=Count("pk"), overdue=Count("pk", filter=Q(sla_due_at__lte=now)))
    )
    found = {tier: (n, overdue) for tier, n, overdue in rows}
    return EscalationFigures(
        tiers=[TierFigures(tier, *found.get(tier, (0, 0))) for tier in reversed(Tier)]
    )


@dataclass(frozen=True)
class AppealFigures:
    pending: int
    oldest_at: datetime | None


def pending_appeals() -> AppealFigures:
    figures = RemovalAppeal.objects.filter(status=RemovalAppeal.Status.PENDING).aggregate(
        pending=Count("pk"), oldest_at=Min("created_at")
    )
    return AppealFigures(**figures)
