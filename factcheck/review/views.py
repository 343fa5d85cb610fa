"""The fact-checker's pages. Every action is a plain POST form that redirects (with a message)
and, when htmx sends it, answers the named partial of the page to swap in place."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.messages.constants import DEFAULT_TAGS
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect

from factcheck.partners.access import is_moderator, membership_for
from factcheck.partners.models import Membership
from factcheck.review import selectors, services
from factcheck.review.forms import RatingForm, SkipForm
from factcheck.review.services import ClaimError


def _forbidden(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "review/forbidden.html",
        {"is_moderator": is_moderator(request.user), "is_admin": request.user.is_staff},
        status=403,
    )


def _notice(level: int, text: str) -> dict:
    """A message shown inside the swapped partial (htmx), instead of the messages list."""
    return {"notice": text, "notice_tag": DEFAULT_TAGS[level]}


def _membership(request: HttpRequest) -> Membership | None:
    return membership_for(request.user)


@login_required
@require_GET
def queue(request: HttpRequest) -> HttpResponse:
    membership = _membership(request)
    if membership is None:
        return _forbidden(request)
    return render(request, "review/queue.html", _queue_context(request, membership))


def _queue_context(request: HttpRequest, membership: Membership, **extra) -> dict:
    partner = membership.partner
    return {
        "partner": partner,
        "languages": services.partner_languages(partner),
        "can_act": partner.can_act,
        "page": selectors.queue_page(partner=partner, page_number=request.GET.get("page")),
        "claims": selectors.live_claims(user=request.user),
        **extra,
    }


@login_required
@require_POST
def claim_next(request: HttpRequest) -> HttpResponse:
    membership = _membership(request)
    if membership is None:
        return _forbidden(request)
    try:
        claim = services.claim_next(user=request.user)
    except (PermissionDenied, ClaimError) as exc:
        return _claim_panel(request, membership, messages.ERROR, str(exc))
    if claim is None:
        return _claim_panel(
            request,
            membership,
            messages.INFO,
            "Nothing to claim: every queued post in your languages is taken, skipped or "
            "rated. New trending posts arrive all the time; try again in a few minutes.",
        )
    messages.success(
        request,
        f"You claimed this post for {settings.FACTCHECK_CLAIM_MINUTES} minutes: rate, skip or "
        "release it.",
    )
    url = reverse("review:review", args=[claim.post.external_id])
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


def _claim_panel(request, membership, level: int, text: str) -> HttpResponse:
    if not request.htmx:
        messages.add_message(request, level, text)
        return redirect("review:queue")
    context = {"can_act": membership.partner.can_act, **_notice(level, text)}
    return render(request, "review/queue.html#claim-panel", context)


@login_required
@require_GET
def review(request: HttpRequest, external_id: str) -> HttpResponse:
    membership = _membership(request)
    if membership is None:
        return _forbidden(request)
    post = selectors.post_by_external_id(external_id)
    context = _review_context(request, membership, post)
    if request.htmx and request.htmx.target == "review-body":
        return render(request, "review/review.html#review-body", context)
    return render(request, "review/review.html", context)


def _review_context(request, membership: Membership, post, **extra) -> dict:
    return {
        "partner": membership.partner,
        "can_act": membership.partner.can_act,
        "state": selectors.review_state(post=post, user=request.user, partner=membership.partner),
        "skip_form": SkipForm(),
        "rating_form": RatingForm(),
        **extra,
    }


@login_required
@require_POST
def rate(request: HttpRequest, external_id: str) -> HttpResponse:
    membership = _membership(request)
    if membership is None:
        return _forbidden(request)
    post = selectors.post_by_external_id(external_id)
    claim = selectors.own_active_claim(post=post, user=request.user)
    if claim is None:
        return _rating_refused(
            request, membership, post, "You do not hold this post, so you cannot rate it."
        )
    form = RatingForm(request.POST)
    if form.is_valid():
        try:
            rating = services.rating_submit(claim=claim, user=request.user, **form.cleaned_data)
        except ValidationError as exc:
            form.add_service_errors(exc)
        except (PermissionDenied, ClaimError) as exc:
            return _rating_refused(request, membership, post, str(exc))
        else:
            messages.success(
                request,
                f"Rated post {post.external_id} “{rating.get_verdict_display()}”; its demotion "
                "is being applied. Press n for the next post.",
            )
            url = reverse("review:queue")
            return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
    # Errors sit next to their fields and everything typed stays in the form.
    context = _review_context(request, membership, post, rating_form=form)
    if request.htmx:
        return render(request, "review/review.html#review-body", context)
    return render(request, "review/review.html", context, status=400)


def _rating_refused(request, membership, post, text: str) -> HttpResponse:
    if not request.htmx:
        messages.error(request, text)
        return redirect("review:review", external_id=post.external_id)
    context = _review_context(request, membership, post, **_notice(messages.ERROR, text))
    return render(request, "review/review.html#review-body", context)


@login_required
@require_GET
def demotion_panel(request: HttpRequest, external_id: str) -> HttpResponse:
    """The review page's demotion panel, polled by htmx while the demotion is pending."""
    membership = _membership(request)
    if membership is None:
        return _forbidden(request)
    post = selectors.post_by_external_id(external_id)
    if not request.htmx:
        return redirect("review:review", external_id=post.external_id)
    context = {"post": post, "demotion": selectors.demotion_for(post=post)}
    return render(request, "review/review.html#demotion-panel", context)


@login_required
@require_POST
def claim_release(request: HttpRequest, claim_id: int) -> HttpResponse:
    membership = _membership(request)
    if membership is None:
        return _forbidden(request)
    claim = selectors.claim_for_user(claim_id=claim_id, user=request.user)
    try:
        services.claim_release(claim=claim, user=request.user)
    except (PermissionDenied, ClaimError) as exc:
        return _after_action(request, membership, claim, messages.ERROR, str(exc))
    return _after_action(
        request,
        membership,
        claim,
        messages.SUCCESS,
        f"Released post {claim.post.external_id}: it is back in the queue.",
    )


@login_required
@require_POST
def claim_skip(request: HttpRequest, claim_id: int) -> HttpResponse:
    membership = _membership(request)
    if membership is None:
        return _forbidden(request)
    claim = selectors.claim_for_user(claim_id=claim_id, user=request.user)
    form = SkipForm(request.POST)
    if not form.is_valid():
        # A failed submit keeps what was typed; plain forms get a 400, htmx a swappable 200.
        context = _review_context(request, membership, claim.post, skip_form=form)
        if request.htmx:
            return render(request, "review/review.html#review-body", context)
        return render(request, "review/review.html", context, status=400)
    try:
        services.claim_skip(
            claim=claim,
            user=request.user,
            reason=form.cleaned_data["reason"],
            note=form.cleaned_data["note"],
        )
    except (PermissionDenied, ClaimError) as exc:
        return _after_action(request, membership, claim, messages.ERROR, str(exc))
    return _after_action(
        request,
        membership,
        claim,
        messages.SUCCESS,
        f"Skipped post {claim.post.external_id}: {membership.partner.name} will not see it "
        "again, and other partners still can.",
    )


def _after_action(request, membership, claim, level: int, text: str) -> HttpResponse:
    """Plain forms go back to the queue with a message; htmx swaps the part of the page the
    action came from (the queue's claim list or the review page) with the notice in it."""
    if not request.htmx:
        messages.add_message(request, level, text)
        return redirect("review:queue")
    notice = _notice(level, text)
    if request.htmx.target == "my-claims":
        context = {"claims": selectors.live_claims(user=request.user), **notice}
        return render(request, "review/queue.html#my-claims", context)
    context = _review_context(request, membership, claim.post, **notice)
    return render(request, "review/review.html#review-body", context)
