"""The dashboard: one page whose sections follow the viewer's roles (DESIGN §2). A checker
sees their own work, a partner lead their partner's members, verdicts and disagreements,
moderators and admins the platform; admins every disagreement."""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET

from factcheck.dashboard import selectors
from factcheck.partners.access import membership_for, roles_for

DISAGREEMENTS_PARTIAL = "disagreements"


@login_required
@require_GET
def index(request: HttpRequest) -> HttpResponse:
    viewer = roles_for(request.user)
    if not (viewer.checker or viewer.moderator or viewer.admin):
        return render(request, "dashboard/forbidden.html", status=403)
    membership = membership_for(request.user)
    partner = membership.partner if membership else None
    context = {"viewer": viewer, "membership": membership, "partner": partner}
    if viewer.admin or viewer.lead:
        context["shows_disagreements"] = True
        # Admins see every disagreement; a lead those their partner is part of.
        context["disagreements"] = selectors.disagreements_page(
            partner=None if viewer.admin else partner, page_number=request.GET.get("page")
        )
        if request.htmx and request.htmx.target == DISAGREEMENTS_PARTIAL:
            return render(request, "dashboard/index.html#disagreements", context)
    now = timezone.now()
    if membership is not None:
        context["queue"] = selectors.partner_queue_waiting(partner=partner)
        if viewer.lead:
            members = selectors.partner_members(partner=partner, now=now)
            context["members"] = members
            context["me"] = next(m for m in members if m.pk == membership.pk)
            context["partner_verdicts"] = selectors.partner_ratings_by_verdict(
                partner=partner, now=now
            )
        else:
            context["me"] = selectors.checker_figures(membership=membership, now=now)
    if viewer.moderator or viewer.admin:
        context["platform"] = {
            "posts": selectors.platform_posts(),
            "verdicts": selectors.platform_ratings_by_verdict(now=now),
            "demotions": selectors.platform_demotions(),
            "authors": selectors.penalised_authors(),
            "escalations": selectors.open_escalations(now=now),
            "appeals": selectors.pending_appeals(),
        }
    return render(request, "dashboard/index.html", context)
