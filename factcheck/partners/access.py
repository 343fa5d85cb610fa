"""Who may do what (DESIGN §2). Every action of a checker goes through ``checker_membership``."""

from dataclasses import dataclass

from django.core.exceptions import PermissionDenied

from factcheck.partners.models import MODERATORS_GROUP, Membership, User


@dataclass(frozen=True)
class Roles:
    checker: bool
    lead: bool
    moderator: bool
    admin: bool
    partner_name: str = ""
    partner_can_act: bool = False


def is_moderator(user: User) -> bool:
    if not user.is_authenticated or not user.is_active:
        return False
    # Cached per request object: the header asks on every page.
    if not hasattr(user, "_is_moderator"):
        user._is_moderator = user.groups.filter(name=MODERATORS_GROUP).exists()
    return user._is_moderator


def membership_for(user: User) -> Membership | None:
    if not user.is_authenticated or not user.is_active:
        return None
    if not hasattr(user, "_membership"):
        user._membership = Membership.objects.select_related("partner").filter(user=user).first()
    return user._membership


def roles_for(user: User) -> Roles:
    membership = membership_for(user)
    return Roles(
        checker=membership is not None,
        lead=membership is not None and membership.role == Membership.Role.LEAD,
        moderator=is_moderator(user),
        admin=user.is_active and user.is_staff,
        partner_name=membership.partner.name if membership else "",
        partner_can_act=bool(membership and membership.partner.can_act),
    )


class PartnerCannotAct(PermissionDenied):
    pass


def checker_membership(user: User) -> Membership:
    """The membership a checker acts through; refuses anyone who is not a member of an active,
    accredited partner."""
    membership = membership_for(user)
    if membership is None:
        raise PermissionDenied("Only fact-checkers of a partner can do this.")
    partner = membership.partner
    if partner.status != partner.Status.ACTIVE:
        raise PartnerCannotAct(f"{partner.name} is suspended; its members cannot claim or rate.")
    if not partner.is_accredited:
        raise PartnerCannotAct(
            f"{partner.name}'s accreditation expired on {partner.accredited_until:%Y-%m-%d}; "
            "its members cannot claim or rate."
        )
    return membership
