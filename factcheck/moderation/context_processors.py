from factcheck.moderation.selectors import pending_escalation_count
from factcheck.partners.access import is_moderator


def pending_escalations(request):
    """The header's count of open escalations, for moderators. A callable the template calls,
    counted once per request and only on pages that show it."""
    user = getattr(request, "user", None)
    if user is None or not is_moderator(user):
        return {}
    cache: list[int] = []

    def count() -> int:
        if not cache:
            cache.append(pending_escalation_count())
        return cache[0]

    return {"moderation_pending": count}
