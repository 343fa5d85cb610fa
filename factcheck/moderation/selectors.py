from django.db.models import Exists, OuterRef, Q, QuerySet
from django.shortcuts import get_object_or_404
from django.utils import timezone
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe

from factcheck.moderation.models import (
    Escalation,
    EscalationSignal,
    Removal,
    RemovalAppeal,
    Source,
    Tier,
)
from factcheck.posts.models import EngagementSnapshot
from factcheck.ratings.models import Rating

QUEUE_ORDER = ["-tier", "sla_due_at", "-post__trending_score", "id"]
# The scorer's spans whose rule starts so are the context that lowered a score (negation,
# quotation, …), not what matched.
CONTEXT_RULE_PREFIX = "context."


def escalation_queue(
    *, user, tier: str = "", source: str = "", claim: str = "", status: str = "open"
) -> QuerySet[Escalation]:
    """Open escalations, most urgent first, then the nearest SLA, then the most trending."""
    now = timezone.now()
    escalations = Escalation.objects.filter(status=status).select_related("post", "claimed_by")
    if tier:
        escalations = escalations.filter(tier=Tier.from_code(tier))
    if source:
        escalations = escalations.filter(
            Exists(EscalationSignal.objects.filter(escalation=OuterRef("pk"), source=source))
        )
    if claim == "mine":
        escalations = escalations.filter(claimed_by=user, claim_expires_at__gt=now)
    elif claim == "unclaimed":
        escalations = escalations.filter(Q(claimed_by__isnull=True) | Q(claim_expires_at__lte=now))
    if status == Escalation.Status.DECIDED:
        return escalations.select_related("decided_by").order_by("-decided_at", "-id")
    return escalations.order_by(*QUEUE_ORDER)


def pending_escalation_count() -> int:
    return Escalation.objects.filter(status=Escalation.Status.OPEN).count()


def escalation_get(*, escalation_id: int) -> Escalation:
    return get_object_or_404(
        Escalation.objects.select_related("post", "claimed_by", "decided_by"), pk=escalation_id
    )


def escalation_signals(*, escalation: Escalation) -> list[EscalationSignal]:
    return list(escalation.signals.select_related("rating").order_by("-created_at", "-id"))


def post_ratings(*, post_id: int) -> list[Rating]:
    return list(
        Rating.objects.filter(post_id=post_id)
        .select_related("partner", "checker")
        .order_by("-created_at", "-id")
    )


def post_snapshots(*, post_id: int, limit: int = 10) -> list[EngagementSnapshot]:
    return list(EngagementSnapshot.objects.filter(post_id=post_id).order_by("-observed_at")[:limit])


def post_removals(*, post_id: int) -> list[Removal]:
    return list(
        Removal.objects.filter(post_id=post_id)
        .select_related("removed_by", "overturned_by", "appeal")
        .order_by("-created_at")
    )


def appeal_queue(*, user) -> QuerySet[RemovalAppeal]:
    """Pending appeals, oldest first, without those of removals the user made."""
    return (
        RemovalAppeal.objects.filter(status=RemovalAppeal.Status.PENDING)
        .exclude(removal__removed_by=user)
        .select_related("removal", "removal__post", "removal__removed_by")
        .order_by("created_at", "id")
    )


def appeal_get(*, appeal_id: int) -> RemovalAppeal:
    return get_object_or_404(
        RemovalAppeal.objects.select_related(
            "removal", "removal__post", "removal__removed_by", "removal__escalation", "decided_by"
        ),
        pk=appeal_id,
    )


# --- matched spans -----------------------------------------------------------------------


def scorer_spans(signals: list[EscalationSignal], text: str) -> tuple[list[dict], list[dict]]:
    """The scorer's matched spans that still fit the post's current text, and those that do
    not (the text changed after scoring): the first are highlighted, the second listed."""
    fitting, stale = [], []
    for signal in signals:
        if signal.source != Source.SCORER:
            continue
        for span in signal_spans(signal):
            if span["rule"].startswith(CONTEXT_RULE_PREFIX):
                continue  # context that lowered a score, not a match
            start, end = span["start"], span["end"]
            if 0 <= start < end <= len(text) and text[start:end] == span["text"]:
                fitting.append(span)
            else:
                stale.append(span)
    return fitting, stale


def signal_spans(signal: EscalationSignal) -> list[dict]:
    """Flatten the stored scorer result into spans with their attribute."""
    result = (signal.details or {}).get("result") or {}
    spans = []
    for name, attribute in (result.get("attributes") or {}).items():
        for span in attribute.get("spans") or []:
            try:
                spans.append(
                    {
                        "attribute": name,
                        "start": int(span["start"]),
                        "end": int(span["end"]),
                        "text": str(span.get("text", "")),
                        "rule": str(span.get("rule", "")),
                    }
                )
            except (KeyError, TypeError, ValueError):
                continue
    return spans


def highlight(text: str, spans: list[dict]) -> SafeString:
    """The text with each span wrapped in <mark>. Every segment is escaped on its own; the
    text itself is never trusted (post text is hostile input)."""
    marks = sorted((span["start"], span["end"], span) for span in spans)
    merged: list[list] = []
    for start, end, span in marks:
        if merged and start < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
            merged[-1][2].append(span)
        else:
            merged.append([start, end, [span]])
    parts = []
    position = 0
    for start, end, members in merged:
        parts.append(conditional_escape(text[position:start]))
        label = "; ".join(
            f"{member['attribute']}: {member['rule']}" if member["rule"] else member["attribute"]
            for member in members
        )
        parts.append(format_html('<mark class="span" title="{}">{}</mark>', label, text[start:end]))
        position = end
    parts.append(conditional_escape(text[position:]))
    # Safe: each part above is escaped or built by format_html.
    return mark_safe("".join(parts))  # noqa: S308
