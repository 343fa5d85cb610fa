"""Receivers for the partners app's events (sent on commit there). The release runs right
here rather than in a task: it is a few bulk statements, and DESIGN §2 says "at once"."""

from factcheck.review import services


def release_partner_claims(sender, partner, **kwargs):
    services.claims_release_for_partner(partner=partner)


def release_member_claims(sender, user, **kwargs):
    services.claims_release_for_user(user=user)
