from django.db.models import QuerySet

from factcheck.posts.models import Post
from factcheck.ratings.models import VERDICT_SEVERITY, Rating, Verdict


def latest_ratings(*, post: Post) -> list[Rating]:
    """Each partner's latest rating of the post, most severe verdict first: what the demotion
    counts. More than one distinct verdict means the partners disagree."""
    ratings = (
        Rating.objects.filter(post=post, superseded_by__isnull=True)
        .select_related("partner", "checker")
        .order_by("partner__name")
    )
    return sorted(ratings, key=lambda rating: VERDICT_SEVERITY[rating.verdict])


def ratings_disagree(ratings: list[Rating]) -> bool:
    return len({rating.verdict for rating in ratings}) > 1


def rating_history(*, post: Post, partner=None) -> QuerySet[Rating]:
    """Every version, newest first; one partner's when ``partner`` is given."""
    ratings = Rating.objects.filter(post=post).select_related("partner", "checker")
    if partner is not None:
        ratings = ratings.filter(partner=partner)
    return ratings.order_by("-created_at", "-id")


def rating_published(*, rating_id: int) -> Rating | None:
    """A rating as published (ClaimReview): any version except "not eligible", which is no
    finding about the claim."""
    return (
        Rating.objects.select_related("post", "partner")
        .exclude(verdict=Verdict.NOT_ELIGIBLE)
        .filter(pk=rating_id)
        .first()
    )
