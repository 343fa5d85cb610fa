from functools import wraps

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseStopPolling

from factcheck.moderation import selectors, services
from factcheck.moderation.forms import AppealDecisionForm, DecisionForm, QueueFilterForm
from factcheck.moderation.models import Action, Escalation, RemovalAppeal
from factcheck.partners.access import is_moderator

PAGE_SIZE = 50


def moderator_required(view):
    """Anonymous people go to the login page; signed-in people who are not moderators get 403
    (checkers, partner leads and admins alike: moderation is its own role)."""

    @wraps(view)
    @login_required
    def wrapper(request, *args, **kwargs):
        if not is_moderator(request.user):
            raise PermissionDenied("Only moderators can use the moderation pages.")
        return view(request, *args, **kwargs)

    return wrapper


def _page(request, queryset):
    return Paginator(queryset, PAGE_SIZE).get_page(request.GET.get("page"))


@require_GET
@moderator_required
def queue(request):
    form = QueueFilterForm(request.GET)
    filters = form.filters()
    page = _page(request, selectors.escalation_queue(user=request.user, **filters))
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "form": form,
        "page": page,
        "filtered": bool(filters),
        "query": query.urlencode(),
        "now": timezone.now(),
    }
    template = "moderation/queue.html#results" if request.htmx else "moderation/queue.html"
    return render(request, template, context)


@require_GET
@moderator_required
def decided(request):
    page = _page(
        request,
        selectors.escalation_queue(user=request.user, status=Escalation.Status.DECIDED),
    )
    return render(request, "moderation/decided.html", {"page": page})


def _detail(request, escalation, form=None, status=200, conflict=""):
    signals = selectors.escalation_signals(escalation=escalation)
    text = escalation.post.text
    spans, stale_spans = selectors.scorer_spans(signals, text)
    context = {
        "escalation": escalation,
        "post": escalation.post,
        "highlighted": selectors.highlight(text, spans),
        "stale_spans": stale_spans,
        "signals": signals,
        "ratings": selectors.post_ratings(post_id=escalation.post_id),
        "snapshots": selectors.post_snapshots(post_id=escalation.post_id),
        "removals": selectors.post_removals(post_id=escalation.post_id),
        "holder": escalation.claim_holder(timezone.now()),
        "form": form or DecisionForm(initial={"version": escalation.version}),
        "conflict": conflict,
    }
    return render(request, "moderation/detail.html", context, status=status)


@require_GET
@moderator_required
def detail(request, pk: int):
    return _detail(request, selectors.escalation_get(escalation_id=pk))


@require_POST
@moderator_required
def claim(request, pk: int):
    escalation = selectors.escalation_get(escalation_id=pk)
    try:
        escalation = services.escalation_claim(escalation=escalation, user=request.user)
    except services.EscalationConflict as exc:
        messages.error(request, str(exc))
        return redirect("moderation:detail", pk=pk)
    until = timezone.localtime(escalation.claim_expires_at)
    messages.success(request, f"Escalation #{pk} is yours until {until:%H:%M %Z}.")
    return redirect("moderation:detail", pk=pk)


@require_POST
@moderator_required
def release(request, pk: int):
    escalation = selectors.escalation_get(escalation_id=pk)
    services.escalation_release(escalation=escalation, user=request.user)
    messages.success(request, f"Released escalation #{pk}: other moderators can take it.")
    return redirect("moderation:queue")


_DONE = {
    Action.REMOVE: "Removed post {post} under {policy}.",
    Action.REFER: "Removed post {post} under {policy} and marked it for law-enforcement referral.",
    Action.KEEP: "Kept post {post}: it stays up, demoted only as its ratings say.",
}


@require_POST
@moderator_required
def decide(request, pk: int):
    escalation = selectors.escalation_get(escalation_id=pk)
    form = DecisionForm(request.POST)
    if not form.is_valid():
        return _detail(request, escalation, form=form, status=400)
    data = form.cleaned_data
    try:
        escalation = services.escalation_decide(
            escalation=escalation,
            user=request.user,
            action=data["action"],
            policy_code=data["policy_code"],
            note=data["note"],
            context_flags=data["context_flags"],
            version=data["version"],
        )
    except services.EscalationConflict as exc:
        current = selectors.escalation_get(escalation_id=pk)
        # Keep what the moderator typed, on the current version: a second click, after
        # reading what changed, decides.
        retry = request.POST.copy()
        retry["version"] = str(current.version)
        return _detail(request, current, form=DecisionForm(retry), status=409, conflict=str(exc))
    messages.success(
        request,
        _DONE[escalation.action].format(
            post=escalation.post.external_id, policy=escalation.policy_label
        ),
    )
    return redirect("moderation:queue")


@require_GET
@moderator_required
def appeals(request):
    page = _page(request, selectors.appeal_queue(user=request.user))
    return render(request, "moderation/appeals.html", {"page": page})


def _appeal_detail(request, appeal, form=None, status=200):
    removal = appeal.removal
    context = {
        "appeal": appeal,
        "removal": removal,
        "post": removal.post,
        "deadline": services.appeal_deadline(removal),
        "own_removal": removal.removed_by_id == request.user.pk,
        "form": form or AppealDecisionForm(),
    }
    return render(request, "moderation/appeal_detail.html", context, status=status)


@require_GET
@moderator_required
def appeal_detail(request, pk: int):
    return _appeal_detail(request, selectors.appeal_get(appeal_id=pk))


@require_POST
@moderator_required
def appeal_decide(request, pk: int):
    appeal = selectors.appeal_get(appeal_id=pk)
    form = AppealDecisionForm(request.POST)
    if not form.is_valid():
        return _appeal_detail(request, appeal, form=form, status=400)
    try:
        appeal = services.removal_appeal_decide(
            appeal=appeal,
            user=request.user,
            outcome=form.cleaned_data["outcome"],
            note=form.cleaned_data["note"],
        )
    except services.AppealAlreadyDecided as exc:
        messages.error(request, str(exc))
        return redirect("moderation:appeal", pk=pk)
    post = appeal.removal.post.external_id
    if appeal.status == RemovalAppeal.Status.OVERTURNED:
        messages.success(request, f"Overturned: post {post} is restored.")
    else:
        messages.success(request, f"Upheld: post {post} stays removed.")
    return redirect("moderation:appeals")


@require_GET
def pending_count(request):
    """The header badge, polled by htmx. 286 tells htmx to stop polling for people who are no
    longer signed in as a moderator, instead of swapping a login page into the header."""
    if not is_moderator(request.user):
        return HttpResponseStopPolling()
    return render(
        request,
        "moderation/pending_count.html",
        {"moderation_pending": selectors.pending_escalation_count()},
    )
