"""A published rating as schema.org ClaimReview JSON-LD (DESIGN §6), in the shape search engines
read: https://schema.org/ClaimReview and Google's ClaimReview guidance."""

from typing import Any

from factcheck.ratings.models import Rating, Verdict

CLAIM_EXCERPT_CHARS = 280
BEST_RATING = 5
WORST_RATING = 1

# ratingValue on the common 1 (false) to 5 (true) scale; alternateName carries the verdict.
RATING_VALUE = {
    Verdict.FALSE: 1,
    Verdict.ALTERED: 1,
    Verdict.PARTLY_FALSE: 2,
    Verdict.MISSING_CONTEXT: 3,
    Verdict.SATIRE: 3,
    Verdict.TRUE: 5,
}


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    if len(text) <= CLAIM_EXCERPT_CHARS:
        return text
    return text[: CLAIM_EXCERPT_CHARS - 1].rsplit(" ", 1)[0] + "…"


def claimreview_for(rating: Rating) -> dict[str, Any]:
    """The JSON-LD document of a published rating (any verdict but not_eligible)."""
    post, partner = rating.post, rating.partner
    appearance: dict[str, Any] = {"@type": "CreativeWork", "url": post.url}
    if post.published_at:
        appearance["datePublished"] = post.published_at.isoformat()
    claim_author = {"@type": "Person", "name": post.author_name or post.author_external_id}
    organization = {"@type": "Organization", "name": partner.name}
    document: dict[str, Any] = {
        "@context": "https://schema.org",
        "@type": "ClaimReview",
        "datePublished": rating.created_at.date().isoformat(),
        "headline": rating.headline,
        "claimReviewed": _excerpt(post.text),
        "itemReviewed": {
            "@type": "Claim",
            "author": claim_author,
            "appearance": appearance,
        },
        "author": organization,
        "reviewRating": {
            "@type": "Rating",
            "ratingValue": RATING_VALUE[rating.verdict],
            "bestRating": BEST_RATING,
            "worstRating": WORST_RATING,
            "alternateName": rating.get_verdict_display(),
        },
    }
    if rating.summary:
        document["reviewBody"] = rating.summary
    if rating.article_url:
        document["url"] = rating.article_url
    if post.language_tag or post.language:
        document["inLanguage"] = post.language_tag or post.language
    return document
