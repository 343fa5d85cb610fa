from collections.abc import Iterable

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import transaction

from factcheck.core.services import audit_record
from factcheck.partners.access import PartnerCannotAct
from factcheck.partners.models import Partner
from factcheck.posts.models import Post
from factcheck.ratings.models import VERDICTS_WITHOUT_ARTICLE, Rating, Verdict
from factcheck.ratings.signals import rating_created

HEADLINE_MAX = 200
TARGET_GROUP_MAX = 100
SOURCES_MAX = 50
_http_url = URLValidator(schemes=["http", "https"])


def _url_error(value: str) -> str | None:
    try:
        _http_url(value)
    except ValidationError:
        return "Enter a full web address starting with http:// or https://."
    if len(value) > 2000:
        return "Keep the address under 2,000 characters."
    return None


def rating_validate(
    *,
    verdict: str,
    headline: str,
    article_url: str,
    sources: list[str],
    attacks_protected_group: bool,
    target_group: str,
) -> None:
    """Raise ValidationError keyed by field name when the rating cannot be saved as given."""
    errors: dict[str, list[str]] = {}
    if verdict not in Verdict.values:
        errors["verdict"] = ["Choose a verdict."]
    if not headline:
        errors["headline"] = ["Write a headline: the one line readers see."]
    elif len(headline) > HEADLINE_MAX:
        errors["headline"] = [
            f"Keep the headline to {HEADLINE_MAX} characters (it has {len(headline)})."
        ]
    if article_url:
        if message := _url_error(article_url):
            errors["article_url"] = [message]
    elif verdict in Verdict.values and verdict not in VERDICTS_WITHOUT_ARTICLE:
        errors["article_url"] = [
            f"A “{Verdict(verdict).label}” rating needs the URL of the fact-check article."
        ]
    if len(sources) > SOURCES_MAX:
        errors["sources"] = [f"List at most {SOURCES_MAX} sources."]
    else:
        bad = [source for source in sources if _url_error(source)]
        if bad:
            errors["sources"] = [
                f"Each source must be an http(s) address, one per line: {bad[0][:80]!r} is not."
            ]
    if attacks_protected_group and not target_group:
        errors["target_group"] = ["Name the group the post attacks."]
    elif len(target_group) > TARGET_GROUP_MAX:
        errors["target_group"] = [f"Keep the group to {TARGET_GROUP_MAX} characters."]
    if errors:
        raise ValidationError(errors)


def rating_create(
    *,
    post: Post,
    partner: Partner,
    checker,
    verdict: str,
    headline: str,
    summary: str = "",
    article_url: str = "",
    sources: Iterable[str] = (),
    advocates_violence: bool = False,
    attacks_protected_group: bool = False,
    target_group: str = "",
) -> Rating:
    """Save the partner's next rating version of the post and set the post's status.

    Append-only: a partner's earlier rating stays, superseded by this one. Does not check the
    checker's claim (the review app does) but refuses a partner that may not act. On commit,
    ``rating_created`` is sent; the demotion app turns it into a demotion task."""
    if not partner.can_act:
        raise PartnerCannotAct(f"{partner.name} may not rate while suspended or unaccredited.")
    headline = (headline or "").strip()
    summary = (summary or "").strip()
    article_url = (article_url or "").strip()
    target_group = (target_group or "").strip() if attacks_protected_group else ""
    sources = [source.strip() for source in sources if source and source.strip()]
    rating_validate(
        verdict=verdict,
        headline=headline,
        article_url=article_url,
        sources=sources,
        attacks_protected_group=attacks_protected_group,
        target_group=target_group,
    )
    with transaction.atomic():
        # The post row lock serialises two ratings of the same post, so versions are numbered
        # without gaps; the unique (post, partner, version) constraint is the backstop.
        post = Post.objects.select_for_update().get(pk=post.pk)
        previous = Rating.objects.filter(post=post, partner=partner).order_by("-version").first()
        rating = Rating(
            post=post,
            partner=partner,
            checker=checker if getattr(checker, "pk", None) else None,
            verdict=verdict,
            headline=headline,
            summary=summary,
            article_url=article_url,
            sources=sources,
            advocates_violence=bool(advocates_violence),
            attacks_protected_group=bool(attacks_protected_group),
            target_group=target_group,
            version=previous.version + 1 if previous else 1,
            supersedes=previous,
        )
        rating.full_clean(
            exclude=["post", "partner", "checker", "supersedes"],
            validate_unique=False,
            validate_constraints=False,
        )
        rating.save()
        before_status = post.status
        if post.status != Post.Status.REMOVED:
            # Ineligible only while every partner's latest rating says so: a single
            # "not eligible" does not hide another partner's "false".
            others_rated = (
                Rating.objects.filter(post=post)
                .exclude(partner=partner)
                .exclude(verdict=Verdict.NOT_ELIGIBLE)
                .filter(superseded_by__isnull=True)
                .exists()
            )
            if verdict == Verdict.NOT_ELIGIBLE and not others_rated:
                post.status = Post.Status.INELIGIBLE
            else:
                post.status = Post.Status.RATED
            if post.status != before_status:
                post.save(update_fields=["status", "updated_at"])
        audit_record(
            actor=checker if checker is not None else "system",
            action="rating.create",
            obj=rating,
            before={"post_status": before_status}
            | ({"superseded_rating": previous.pk} if previous else {}),
            after={
                "post": post.external_id,
                "partner": partner.name,
                "verdict": verdict,
                "version": rating.version,
                "headline": headline,
                "article_url": article_url,
                "flags": {
                    "advocates_violence": rating.advocates_violence,
                    "attacks_protected_group": rating.attacks_protected_group,
                    "target_group": target_group,
                },
                "post_status": post.status,
            },
        )
        # robust: the rating is committed whatever a receiver does; a receiver's failure must
        # not turn a saved rating into an error page.
        transaction.on_commit(
            lambda: rating_created.send(sender=Rating, rating=rating), robust=True
        )
    return rating
