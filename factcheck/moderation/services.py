"""Escalations, decisions, removals and appeals (DESIGN §5.6–5.7, issue 5).

Signals arrive from three places: the ratings app's ``rating_created`` (a checker's flag), the
posts app's ``posts_ingested`` (the scorer and user-report rates); both are Django signals sent
on commit, whose receivers (receivers.py) enqueue the tasks that call the services here.
"""

import copy
import hashlib
import logging
from collections import Counter
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import F, Q, Window
from django.db.models.functions import RowNumber
from django.urls import reverse
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError

from factcheck.core.services import audit_record, audit_record_many
from factcheck.demotion.services import demotion_apply
from factcheck.moderation.models import (
    CONTEXT_FLAGS,
    POLICY_CODES,
    Action,
    Escalation,
    EscalationSignal,
    Notification,
    PendingScreening,
    Removal,
    RemovalAppeal,
    Source,
    Tier,
    WebhookDelivery,
)
from factcheck.moderation.scorer import get_scorer
from factcheck.posts.models import EngagementSnapshot, Post
from factcheck.ratings.models import Rating

log = logging.getLogger(__name__)


class EscalationConflict(Exception):
    """A claim or decision refused because someone else holds or changed the escalation (409)."""


class AppealError(Exception):
    status_code = 400


class AppealNotFound(AppealError):
    status_code = 404


class AppealAlreadyFiled(AppealError):
    status_code = 409


class AppealWindowClosed(AppealError):
    status_code = 410


class AppealAlreadyDecided(AppealError):
    status_code = 409


# --- enqueueing --------------------------------------------------------------------------


def enqueue(task, *args) -> bool:
    """Send a task. A broker that is down is logged, never raised into the caller (a request
    that already committed): the reconciler finds the work that was not sent."""
    try:
        task.delay(*args)
    except (BrokerError, OSError):
        log.exception(
            "Could not enqueue %s%r; the moderation reconciler will retry.", task.name, args
        )
        return False
    return True


def _tasks():
    # Imported late: tasks import this module.
    from factcheck.moderation import tasks

    return tasks


# --- signals -----------------------------------------------------------------------------


def sla_for(tier: int) -> timedelta:
    minutes = {
        Tier.URGENT: settings.FACTCHECK_SLA_URGENT_MINUTES,
        Tier.HIGH: settings.FACTCHECK_SLA_HIGH_MINUTES,
        Tier.NORMAL: settings.FACTCHECK_SLA_NORMAL_MINUTES,
    }[Tier(tier)]
    return timedelta(minutes=minutes)


@dataclass(frozen=True)
class SignalOutcome:
    escalation: Escalation | None
    signal: EscalationSignal | None  # None when the same signal was already recorded
    event: str | None  # Notification.Event when moderators are told


@dataclass(frozen=True)
class NewSignal:
    """A signal to record with ``escalation_signals_add``."""

    post_id: int
    source: str
    tier: int
    score: float | None
    details: dict
    dedupe_key: str
    categories: list[str] | tuple = ()
    rating: Rating | None = None
    actor: object = None  # a user or a label; "system:<source>" when None


def escalation_signal_add(*, post: Post, **fields) -> SignalOutcome:
    """One signal (``fields`` are NewSignal's): ``escalation_signals_add`` with a batch of
    one."""
    return escalation_signals_add(signals=[NewSignal(post_id=post.pk, **fields)])[0]


# What a signal may change on an existing escalation: bulk_update writes these.
SIGNAL_FIELDS = [
    "status",
    "tier",
    "sla_due_at",
    "score",
    "categories",
    "sources",
    "reopened_at",
    "claimed_by",
    "claim_expires_at",
    "version",
    "updated_at",
]


def escalation_signals_add(*, signals: list[NewSignal]) -> list[SignalOutcome]:
    """Record signals, each on its post's open escalation, opening one or raising its tier, or
    reopening the last decided one when the signal's tier is higher (unless the post is
    removed). Idempotent by ``dedupe_key``. The whole batch is one transaction of a fixed
    number of queries, however many signals; they apply in order, so two signals for one post
    give what two batches would. Moderators are notified on commit of each creation, rise or
    reopening. Returns one outcome per signal, in order."""
    if not signals:
        return []
    now = timezone.now()
    with transaction.atomic():
        # Every signal for these posts waits here, so nothing below can race. External id
        # order is the order ingest locks posts in (posts_ingest_state): a screening batch
        # queues behind another, or behind an ingest batch sharing posts, instead of
        # deadlocking with it.
        posts = {
            post.pk: post
            for post in Post.objects.select_for_update()
            .filter(pk__in={signal.post_id for signal in signals})
            .order_by("external_id")
            .only("id", "status", "external_id", "url", "language")
        }
        recorded = {
            existing.dedupe_key: existing.escalation
            for existing in EscalationSignal.objects.select_related("escalation").filter(
                dedupe_key__in={signal.dedupe_key for signal in signals}
            )
        }
        # The newest escalation of a post is its open one when it has one: a new one opens
        # only when none is open. Locked, so a decision cannot slip in before commit.
        newest: dict[int, Escalation] = {}
        for escalation in (
            Escalation.objects.select_for_update()
            .filter(post_id__in=list(posts))
            .order_by("post_id", "-created_at", "-id")
        ):
            newest.setdefault(escalation.post_id, escalation)

        outcomes, rows, events = [], [], []
        touched: dict[int, Escalation] = {}
        for signal in signals:
            post = posts.get(signal.post_id)
            if post is None:  # deleted since the signal was found: nothing to escalate
                outcomes.append(SignalOutcome(None, None, None))
                continue
            if signal.dedupe_key in recorded:
                outcomes.append(SignalOutcome(recorded[signal.dedupe_key], None, None))
                continue
            before = newest.get(post.pk)
            before_state = _escalation_state(before) if before else None
            escalation, event = _signal_apply(before, signal=signal, post=post, now=now)
            newest[post.pk] = touched[post.pk] = escalation
            row = EscalationSignal(
                escalation=escalation,
                source=signal.source,
                tier=signal.tier,
                score=signal.score,
                details=signal.details,
                dedupe_key=signal.dedupe_key,
                rating=signal.rating,
            )
            rows.append(row)
            recorded[signal.dedupe_key] = escalation
            outcomes.append(SignalOutcome(escalation, row, event))
            if event:
                # The escalation as this event left it: a later signal in the batch may
                # raise it again, and each event is told as it happened.
                events.append((copy.copy(escalation), event, before_state, signal))

        opened = [escalation for escalation in touched.values() if escalation.pk is None]
        changed = [escalation for escalation in touched.values() if escalation.pk is not None]
        for escalation in changed:
            escalation.updated_at = now  # bulk_update does not apply auto_now
        Escalation.objects.bulk_update(changed, SIGNAL_FIELDS)
        # Inserting sets the new escalations' ids, which the signals and events refer to.
        Escalation.objects.bulk_create(opened)
        EscalationSignal.objects.bulk_create(rows)
        for as_told, _, _, _ in events:
            as_told.pk = touched[as_told.post_id].pk
        audit_record_many(
            [
                {
                    "actor": signal.actor or f"system:{signal.source}",
                    "action": f"escalation.{event}",
                    "obj": as_told,
                    "before": before_state,
                    "after": _escalation_state(as_told) | {"signal": signal.source},
                }
                for as_told, event, before_state, signal in events
            ]
        )
        _notifications_create(
            [(as_told, event, posts[as_told.post_id]) for as_told, event, _, _ in events],
            now=now,
        )
    return outcomes


def _signal_apply(
    escalation: Escalation | None, *, signal: NewSignal, post: Post, now
) -> tuple[Escalation, str | None]:
    """Today's rules for one signal, on the post's newest escalation (changed in place) or a
    new one; returns it and the event moderators are told of, if any."""
    tier = Tier(signal.tier)
    event = None
    if escalation is None:
        escalation = Escalation(
            post_id=post.pk, tier=tier, sla_due_at=now + sla_for(tier), status="open"
        )
        event = Notification.Event.CREATED
    elif escalation.is_open:
        if tier > escalation.tier:
            escalation.tier = tier
            escalation.sla_due_at = min(escalation.sla_due_at, now + sla_for(tier))
            event = Notification.Event.RAISED
        escalation.version += 1
    elif tier > escalation.tier and post.status != Post.Status.REMOVED:
        escalation.status = Escalation.Status.OPEN
        escalation.tier = tier
        escalation.sla_due_at = now + sla_for(tier)
        escalation.reopened_at = now
        escalation.claimed_by = None
        escalation.claim_expires_at = None
        escalation.version += 1
        event = Notification.Event.REOPENED
    # Otherwise the escalation stays decided; the signal is kept as evidence on it.
    score = signal.score
    if score is not None and (escalation.score is None or score > escalation.score):
        escalation.score = score
    escalation.categories = sorted(set(escalation.categories) | set(signal.categories))
    escalation.sources = sorted(set(escalation.sources) | {signal.source})
    return escalation, event


def _escalation_state(escalation: Escalation) -> dict:
    return {
        "status": escalation.status,
        "tier": escalation.tier_code,
        "sla_due_at": escalation.sla_due_at.isoformat(),
        "version": escalation.version,
    }


def escalation_flag_from_rating(*, rating_id: int) -> SignalOutcome | None:
    """A checker's flag on a rating: always tier high (issue 5)."""
    rating = (
        Rating.objects.select_related("post", "partner", "checker").filter(pk=rating_id).first()
    )
    if rating is None or not rating.is_flagged:
        return None
    categories = []
    if rating.advocates_violence:
        categories.append("violence")
    if rating.attacks_protected_group:
        categories.append("hate")
    details = {
        "rating_id": rating.pk,
        "partner": rating.partner.name,
        "checker": str(rating.checker) if rating.checker else "",
        "verdict": rating.verdict,
        "headline": rating.headline,
        "advocates_violence": rating.advocates_violence,
        "attacks_protected_group": rating.attacks_protected_group,
        "target_group": rating.target_group,
    }
    return escalation_signal_add(
        post=rating.post,
        source=Source.CHECKER_FLAG,
        tier=Tier.HIGH,
        score=None,
        details=details,
        dedupe_key=f"checker_flag:rating:{rating.pk}",
        categories=categories,
        rating=rating,
        actor=rating.checker or "system:checker_flag",
    )


# Scorer attributes and the categories moderators filter by.
ATTRIBUTE_CATEGORIES = {
    "THREAT": "violence",
    "IDENTITY_ATTACK": "hate",
    "SEVERE_TOXICITY": "toxicity",
    "INSULT": "insult",
}


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def post_score(
    *, post_id: int, text: str, language: str, scorer, threshold: float, cache=None
) -> NewSignal | None:
    """Score one post's text; above the threshold, the scorer signal to record. The dedupe key
    names the exact text and the scorer version, so rescoring the same text adds nothing.
    ``cache`` (a dict) shares results between identical texts, such as copies in a batch."""
    key = (text, language)
    result = cache.get(key) if cache is not None else None
    if result is None:
        result = scorer.score(text, language)
        if cache is not None:
            cache[key] = result
    # A language without rules is unknown to the scorer: only the other signals count.
    tier_code = result.tier(threshold) if result.language_supported else None
    if tier_code is None:
        return None
    categories = [
        ATTRIBUTE_CATEGORIES.get(name, name.lower())
        for name, attribute in result.attributes.items()
        if attribute.score >= threshold
    ]
    digest = text_sha256(text)
    return NewSignal(
        post_id=post_id,
        source=Source.SCORER,
        tier=Tier.from_code(tier_code),
        score=round(result.max_score, 4),
        details={"result": result.to_json(), "text_sha256": digest, "threshold": threshold},
        dedupe_key=f"scorer:{post_id}:{digest}:{result.version}"[:200],
        categories=categories,
    )


def report_rates_check(*, post_ids: list[int]) -> list[NewSignal]:
    """User reports of hate or violence per 1,000 views over the interval between a post's
    two latest snapshots (or since publication, with one) rising past the threshold: a
    signal, tier high when the rate is very high. Returns the signals to record."""
    threshold = settings.FACTCHECK_REPORT_RATE_THRESHOLD
    high = settings.FACTCHECK_REPORT_RATE_HIGH
    min_views = settings.FACTCHECK_REPORT_MIN_VIEWS
    # Posts nobody reported need no snapshot read: this keeps ingest cheap.
    reported = list(
        Post.objects.filter(pk__in=post_ids)
        .filter(Q(reports_hate__gt=0) | Q(reports_violence__gt=0))
        .values_list("pk", flat=True)
    )
    if not reported:
        return []
    latest_two = (
        EngagementSnapshot.objects.filter(post_id__in=reported)
        .annotate(
            rank=Window(RowNumber(), partition_by=[F("post_id")], order_by=F("observed_at").desc())
        )
        .filter(rank__lte=2)
        .order_by("post_id", "rank")
    )
    by_post: dict[int, list[EngagementSnapshot]] = {}
    for snapshot in latest_two:
        by_post.setdefault(snapshot.post_id, []).append(snapshot)
    signals = []
    for post_id, snapshots in by_post.items():
        latest = snapshots[0]
        previous = snapshots[1] if len(snapshots) > 1 else None
        views = latest.views - (previous.views if previous else 0)
        hate = latest.reports_hate - (previous.reports_hate if previous else 0)
        violence = latest.reports_violence - (previous.reports_violence if previous else 0)
        if views < min_views or hate + violence <= 0:
            continue
        rate = 1000 * (hate + violence) / views
        if rate < threshold:
            continue
        categories = (["hate"] if hate > 0 else []) + (["violence"] if violence > 0 else [])
        signals.append(
            NewSignal(
                post_id=post_id,
                source=Source.USER_REPORTS,
                tier=Tier.HIGH if rate >= high else Tier.NORMAL,
                score=None,
                details={
                    "rate_per_1000_views": round(rate, 2),
                    "threshold": threshold,
                    "views": views,
                    "reports_hate": hate,
                    "reports_violence": violence,
                    "from": previous.observed_at.isoformat() if previous else None,
                    "to": latest.observed_at.isoformat(),
                },
                dedupe_key=f"user_reports:{post_id}:{latest.pk}",
                categories=categories,
            )
        )
    return signals


def posts_screen(*, post_ids: list[int], text_changed_ids: list[int]) -> dict:
    """After an ingest batch: score the new or changed texts (unless
    FACTCHECK_SCORE_ON_INGEST is off) and check every post's user-report rate, then record
    the batch's signals together."""
    signals = []
    scored = 0
    if settings.FACTCHECK_SCORE_ON_INGEST and text_changed_ids:
        scorer = get_scorer()
        threshold = settings.FACTCHECK_ESCALATION_THRESHOLD
        # Plain rows, not model instances: this loop runs for every ingested post.
        rows = Post.objects.filter(pk__in=text_changed_ids).values_list("pk", "text", "language")
        # Copies of a viral text often arrive in one batch: score each text once.
        cache: dict = {}
        for pk, text, language in rows.iterator(chunk_size=1000):
            scored += 1
            signal = post_score(
                post_id=pk,
                text=text,
                language=language,
                scorer=scorer,
                threshold=threshold,
                cache=cache,
            )
            if signal is not None:
                signals.append(signal)
    signals += report_rates_check(post_ids=post_ids)
    # Scoring is done before this transaction, so the posts stay locked only for the writes.
    outcomes = escalation_signals_add(signals=signals)
    added = Counter(
        signal.source for signal, outcome in zip(signals, outcomes, strict=True) if outcome.signal
    )
    return {
        "scored": scored,
        "scorer_signals": added[Source.SCORER],
        "report_signals": added[Source.USER_REPORTS],
    }


def screening_defer(*, post_ids: list[int], text_changed_ids: list[int]) -> PendingScreening:
    return PendingScreening.objects.create(
        post_ids=list(post_ids), text_changed_ids=list(text_changed_ids)
    )


# --- notifications -----------------------------------------------------------------------


def _notifications_create(events: list[tuple[Escalation, str, Post]], *, now) -> None:
    """A notification and its webhook deliveries per (escalation as told, event, post); on
    commit, one task emails them all and one task per delivery sends each webhook (they
    retry separately)."""
    notifications = []
    for escalation, event, post in events:
        tier = Tier(escalation.tier)
        path = reverse("moderation:detail", args=[escalation.pk])
        payload = {
            "id": f"escalation-{escalation.pk}-{event}-{tier.code}",
            "event": f"escalation.{event}",
            "created_at": now.isoformat(),
            "escalation": {
                "id": escalation.pk,
                "tier": tier.code,
                "sla_due_at": escalation.sla_due_at.isoformat(),
                "categories": escalation.categories,
                "sources": escalation.sources,
                "score": escalation.score,
                "url": settings.FACTCHECK_BASE_URL.rstrip("/") + path,
            },
            "post": {"id": post.external_id, "url": post.url, "language": post.language},
        }
        notifications.append(
            Notification(escalation_id=escalation.pk, event=event, tier=tier, payload=payload)
        )
    if not notifications:
        return
    # Under the post locks, and with a tier that only rises, each (escalation, event, tier)
    # comes here once; the unique constraint would refuse a second notification.
    Notification.objects.bulk_create(notifications)
    urls = list(dict.fromkeys(settings.FACTCHECK_WEBHOOK_URLS))
    deliveries = WebhookDelivery.objects.bulk_create(
        [
            WebhookDelivery(notification=notification, url=url)
            for notification in notifications
            for url in urls
        ]
    )
    tasks = _tasks()
    notification_ids = [notification.pk for notification in notifications]
    transaction.on_commit(lambda: enqueue(tasks.notification_emails_send, notification_ids))
    for delivery in deliveries:
        transaction.on_commit(
            lambda delivery_id=delivery.pk: enqueue(tasks.webhook_deliver, delivery_id)
        )


# --- claims ------------------------------------------------------------------------------


def _claim_free_or_mine(user, now) -> Q:
    return Q(claimed_by__isnull=True) | Q(claim_expires_at__lte=now) | Q(claimed_by=user)


def escalation_claim(*, escalation: Escalation, user) -> Escalation:
    """A lease on an open escalation, so two moderators do not work the same item. Claiming
    again extends the holder's own lease."""
    now = timezone.now()
    expires = now + timedelta(minutes=settings.FACTCHECK_MODERATION_CLAIM_MINUTES)
    claimed = (
        Escalation.objects.filter(pk=escalation.pk, status=Escalation.Status.OPEN)
        .filter(_claim_free_or_mine(user, now))
        .update(claimed_by=user, claim_expires_at=expires)
    )
    current = Escalation.objects.select_related("claimed_by", "decided_by").get(pk=escalation.pk)
    if not claimed:
        if not current.is_open:
            raise EscalationConflict(_decided_message(current))
        raise EscalationConflict(_held_message(current))
    return current


def escalation_release(*, escalation: Escalation, user) -> Escalation:
    Escalation.objects.filter(pk=escalation.pk, claimed_by=user).update(
        claimed_by=None, claim_expires_at=None
    )
    return Escalation.objects.get(pk=escalation.pk)


def escalation_claims_expire() -> int:
    """Clear lapsed leases (a lapsed lease is already free; this keeps the queue honest)."""
    return Escalation.objects.filter(
        claimed_by__isnull=False, claim_expires_at__lte=timezone.now()
    ).update(claimed_by=None, claim_expires_at=None)


def _held_message(escalation: Escalation) -> str:
    until = timezone.localtime(escalation.claim_expires_at)
    return (
        f"{escalation.claimed_by} is working on this escalation (claimed until "
        f"{until:%H:%M %Z}). Pick another item, or wait for the claim to lapse."
    )


def _decided_message(escalation: Escalation) -> str:
    when = timezone.localtime(escalation.decided_at)
    return (
        f"{escalation.decided_by or 'Another moderator'} already decided this escalation "
        f"({escalation.get_action_display()}) at {when:%Y-%m-%d %H:%M %Z}. Nothing was changed."
    )


# --- decisions ---------------------------------------------------------------------------


def decision_errors(
    *, action: str, policy_code: str, note: str, context_flags: list[str]
) -> dict[str, str]:
    errors = {}
    if action not in Action.values:
        errors["action"] = "Choose Remove, Keep or Refer."
    if policy_code and policy_code not in POLICY_CODES:
        errors["policy_code"] = f"Unknown policy code. Valid: {', '.join(POLICY_CODES)}."
    elif not policy_code and action in (Action.REMOVE, Action.REFER):
        errors["policy_code"] = "Choose the policy the post breaks."
    if action in (Action.REMOVE, Action.REFER) and not note.strip():
        errors["note"] = "Explain the decision: Remove and Refer need a note."
    unknown = [flag for flag in context_flags if flag not in CONTEXT_FLAGS]
    if unknown:
        errors["context_flags"] = f"Unknown context flag(s): {', '.join(unknown)}."
    return errors


def escalation_decide(
    *,
    escalation: Escalation,
    user,
    action: str,
    policy_code: str,
    note: str,
    context_flags: list[str],
    version: int,
) -> Escalation:
    """Remove, keep or refer. Optimistic: the decision names the version it was made on, and
    only the conditional update that still finds that version wins, however many moderators
    act at once. Remove and Refer take the post down at once (the ranker sees it)."""
    errors = decision_errors(
        action=action, policy_code=policy_code, note=note, context_flags=context_flags
    )
    if errors:
        raise ValidationError(errors)
    now = timezone.now()
    with transaction.atomic():
        # The post first, then the escalation: the order signals lock them in
        # (escalation_signals_add), so a decision and a new signal wait for each other
        # instead of deadlocking.
        list(Post.objects.select_for_update().filter(pk=escalation.post_id).values_list("pk"))
        decided = (
            Escalation.objects.filter(
                pk=escalation.pk, status=Escalation.Status.OPEN, version=version
            )
            .filter(_claim_free_or_mine(user, now))
            .update(
                status=Escalation.Status.DECIDED,
                action=action,
                policy_code=policy_code,
                note=note.strip(),
                context_flags=sorted(set(context_flags)),
                decided_by=user,
                decided_at=now,
                claimed_by=None,
                claim_expires_at=None,
                version=F("version") + 1,
                updated_at=now,
            )
        )
        current = Escalation.objects.select_related("post", "claimed_by", "decided_by").get(
            pk=escalation.pk
        )
        if not decided:
            raise EscalationConflict(_conflict_message(current, user, version, now))
        removal = None
        if action in (Action.REMOVE, Action.REFER):
            removal = _removal_create(escalation=current, user=user, now=now)
        audit_record(
            actor=user,
            action=f"escalation.{action}",
            obj=current,
            before={"status": "open", "version": version},
            after={
                "status": current.status,
                "action": action,
                "policy_code": policy_code,
                "context_flags": current.context_flags,
                "note": current.note,
                "version": current.version,
                "removal": removal.pk if removal else None,
            },
        )
    return current


def _conflict_message(escalation: Escalation, user, version: int, now) -> str:
    if not escalation.is_open:
        return _decided_message(escalation)
    holder = escalation.claim_holder(now)
    if holder is not None and holder.pk != user.pk:
        return _held_message(escalation)
    return (
        f"This escalation changed since you opened it (version {version}, now "
        f"{escalation.version}): a new signal arrived or it was reopened. Nothing was "
        "changed; review it again, then decide."
    )


def _removal_create(*, escalation: Escalation, user, now) -> Removal:
    post = Post.objects.select_for_update().get(pk=escalation.post_id)
    referral = escalation.action == Action.REFER
    standing = Removal.objects.filter(post=post, overturned_at__isnull=True).first()
    if standing is not None:
        # Already down (a reopened escalation decided again): at most mark it for referral.
        if referral and not standing.referral:
            standing.referral = True
            standing.save(update_fields=["referral"])
        return standing
    removal = Removal.objects.create(
        post=post,
        escalation=escalation,
        policy_code=escalation.policy_code,
        note=escalation.note,
        removed_by=user,
        previous_status=post.status,
        referral=referral,
    )
    Post.objects.filter(pk=post.pk).update(status=Post.Status.REMOVED, updated_at=now)
    # In the same transaction, so the ranker lookup and change feed show it at once.
    demotion_apply(post_id=post.pk)
    audit_record(
        actor=user,
        action="post.remove",
        obj=post,
        before={"status": post.status},
        after={
            "status": Post.Status.REMOVED,
            "policy_code": removal.policy_code,
            "referral": referral,
            "removal": removal.pk,
        },
    )
    return removal


# --- appeals -----------------------------------------------------------------------------


def appeal_deadline(removal: Removal):
    return removal.created_at + timedelta(days=settings.FACTCHECK_APPEAL_DAYS)


def removal_appeal_file(*, post_external_id: str, text: str, actor) -> RemovalAppeal:
    """The platform appeals a removal on the author's behalf: once, within the window."""
    now = timezone.now()
    text = text.strip()
    if not text:
        raise ValidationError({"text": "Give the author's reasons for the appeal."})
    with transaction.atomic():
        removal = (
            Removal.objects.select_for_update()
            .select_related("post")
            .filter(post__external_id=post_external_id, overturned_at__isnull=True)
            .first()
        )
        if removal is None:
            raise AppealNotFound(f"Post {post_external_id} is not removed: nothing to appeal.")
        previous = RemovalAppeal.objects.filter(removal=removal).first()
        if previous is not None:
            raise AppealAlreadyFiled(
                f"This removal was already appealed on {previous.created_at:%Y-%m-%d}; a "
                "removal can be appealed once."
            )
        deadline = appeal_deadline(removal)
        if now > deadline:
            raise AppealWindowClosed(
                f"The appeal window closed on {deadline:%Y-%m-%d}: a removal can be appealed "
                f"within {settings.FACTCHECK_APPEAL_DAYS} days."
            )
        appeal = RemovalAppeal.objects.create(removal=removal, text=text, filed_by=str(actor)[:200])
        audit_record(
            actor=actor,
            action="removal.appeal",
            obj=appeal,
            after={"post": post_external_id, "removal": removal.pk},
        )
    return appeal


class AppealOutcome:
    UPHOLD = "uphold"
    OVERTURN = "overturn"
    CHOICES = [(UPHOLD, "Uphold the removal"), (OVERTURN, "Overturn and restore the post")]


def removal_appeal_decide(*, appeal: RemovalAppeal, user, outcome: str, note: str) -> RemovalAppeal:
    """Uphold, or overturn: the post gets back its status from before the removal and its
    demotion state is recomputed. The moderator who removed the post may not decide."""
    if outcome not in (AppealOutcome.UPHOLD, AppealOutcome.OVERTURN):
        raise ValidationError({"outcome": "Choose Uphold or Overturn."})
    if outcome == AppealOutcome.OVERTURN and not note.strip():
        raise ValidationError({"note": "Explain why the removal is overturned."})
    now = timezone.now()
    with transaction.atomic():
        appeal = (
            RemovalAppeal.objects.select_for_update()
            .select_related("removal", "removal__post")
            .get(pk=appeal.pk)
        )
        removal = appeal.removal
        if removal.removed_by_id == user.pk:
            raise PermissionDenied(
                "You removed this post, so another moderator must decide its appeal."
            )
        if appeal.status != RemovalAppeal.Status.PENDING:
            raise AppealAlreadyDecided(
                f"This appeal was already decided ({appeal.get_status_display().lower()})."
            )
        appeal.status = (
            RemovalAppeal.Status.OVERTURNED
            if outcome == AppealOutcome.OVERTURN
            else RemovalAppeal.Status.UPHELD
        )
        appeal.decided_by = user
        appeal.decided_at = now
        appeal.decision_note = note.strip()
        appeal.save(update_fields=["status", "decided_by", "decided_at", "decision_note"])
        if outcome == AppealOutcome.OVERTURN:
            _removal_overturn(removal=removal, user=user, now=now)
        audit_record(
            actor=user,
            action=f"removal.appeal_{outcome}",
            obj=appeal,
            before={"status": RemovalAppeal.Status.PENDING},
            after={"status": appeal.status, "note": appeal.decision_note},
        )
    return appeal


def _removal_overturn(*, removal: Removal, user, now) -> None:
    Removal.objects.filter(pk=removal.pk).update(overturned_at=now, overturned_by=user)
    # A review lease from before the removal cannot be trusted to still exist; the post
    # goes back to the queue instead of sitting "in review" with no one on it.
    restored = (
        Post.Status.QUEUED
        if removal.previous_status == Post.Status.IN_REVIEW
        else removal.previous_status
    )
    Post.objects.filter(pk=removal.post_id).update(status=restored, updated_at=now)
    demotion_apply(post_id=removal.post_id)
    audit_record(
        actor=user,
        action="post.restore",
        obj=removal.post,
        before={"status": Post.Status.REMOVED},
        after={"status": restored, "removal": removal.pk},
    )


# --- reconciling -------------------------------------------------------------------------

# How long an enqueued task may take to show its effect before the reconciler steps in.
RECONCILE_GRACE = timedelta(minutes=2)
FLAG_LOOKBACK = timedelta(days=7)
# Longer than a webhook's whole backoff schedule: a pending delivery this quiet is orphaned.
WEBHOOK_STALL = timedelta(minutes=30)


def moderation_reconcile(*, now=None) -> dict[str, int]:
    """Periodic: finish what a broker outage interrupted. Flagged ratings without their
    signal get it; deferred screenings, unsent emails and stalled webhooks are enqueued."""
    now = now or timezone.now()
    tasks = _tasks()
    flagged = (
        Rating.objects.filter(Q(advocates_violence=True) | Q(attacks_protected_group=True))
        .filter(created_at__gte=now - FLAG_LOOKBACK, created_at__lt=now - RECONCILE_GRACE)
        .filter(escalation_signals__isnull=True)
        .values_list("pk", flat=True)
    )
    flags = 0
    for rating_id in flagged:
        outcome = escalation_flag_from_rating(rating_id=rating_id)
        flags += bool(outcome and outcome.signal)
    screenings = 0
    for pending in PendingScreening.objects.order_by("pk")[:100]:
        if not enqueue(tasks.posts_screen, pending.post_ids, pending.text_changed_ids):
            break
        pending.delete()
        screenings += 1
    unsent = list(
        Notification.objects.filter(
            email_sent_at__isnull=True, created_at__lt=now - RECONCILE_GRACE
        ).values_list("pk", flat=True)[:100]
    )
    emails = len(unsent) if unsent and enqueue(tasks.notification_emails_send, unsent) else 0
    webhooks = 0
    stalled = WebhookDelivery.objects.filter(status=WebhookDelivery.Status.PENDING).filter(
        Q(attempts=0, created_at__lt=now - RECONCILE_GRACE)
        | Q(last_attempt_at__lt=now - WEBHOOK_STALL)
    )
    for delivery_id in stalled.values_list("pk", flat=True)[:100]:
        webhooks += enqueue(tasks.webhook_deliver, delivery_id)
    return {"flags": flags, "screenings": screenings, "emails": emails, "webhooks": webhooks}
