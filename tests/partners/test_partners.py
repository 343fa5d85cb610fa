from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied
from django.utils import timezone

from factcheck.core.models import AuditEvent
from factcheck.partners.access import PartnerCannotAct, checker_membership
from factcheck.partners.models import ApiClient, Partner
from factcheck.partners.services import (
    accreditation_check,
    api_client_create,
    member_deactivate,
    partner_extend_accreditation,
    partner_reinstate,
    partner_suspend,
)
from factcheck.partners.signals import member_deactivated, partner_suspended
from tests.factories import MembershipFactory, PartnerFactory, UserFactory


@pytest.mark.django_db
def test_it_lets_a_checker_of_an_active_accredited_partner_act(alice, partner_a):
    assert checker_membership(alice).partner == partner_a


@pytest.mark.django_db
def test_it_refuses_a_checker_of_a_suspended_partner(alice, partner_a, ada):
    partner_suspend(partner=partner_a, actor=ada, reason="Review")
    alice = type(alice).objects.get(pk=alice.pk)  # drop the cached membership
    with pytest.raises(PartnerCannotAct, match="suspended"):
        checker_membership(alice)


@pytest.mark.django_db
def test_it_refuses_a_checker_whose_partner_accreditation_expired(alice, partner_a):
    Partner.objects.filter(pk=partner_a.pk).update(
        accredited_until=timezone.localdate() - timedelta(days=1)
    )
    alice = type(alice).objects.get(pk=alice.pk)
    with pytest.raises(PartnerCannotAct, match="expired"):
        checker_membership(alice)


@pytest.mark.django_db
def test_it_refuses_people_who_are_not_checkers(moe, ada):
    for user in (moe, ada):
        with pytest.raises(PermissionDenied):
            checker_membership(user)


@pytest.mark.django_db
def test_it_audits_suspend_reinstate_and_extend(partner_a, ada, django_capture_on_commit_callbacks):
    received = []

    def receiver(sender, partner, **kwargs):
        received.append(partner.pk)

    partner_suspended.connect(receiver)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            partner_suspend(partner=partner_a, actor=ada, reason="Complaint under review")
    finally:
        partner_suspended.disconnect(receiver)
    assert received == [partner_a.pk]
    partner_reinstate(partner=partner_a, actor=ada)
    until = timezone.localdate() + timedelta(days=700)
    partner_extend_accreditation(partner=partner_a, actor=ada, until=until)

    events = list(AuditEvent.objects.order_by("id"))
    assert [e.action for e in events] == [
        "partner.suspend",
        "partner.reinstate",
        "partner.extend_accreditation",
    ]
    assert events[0].before["status"] == "active"
    assert events[0].after["status"] == "suspended"
    assert events[0].actor == ada
    assert events[2].after["accredited_until"] == until.isoformat()


@pytest.mark.django_db
def test_it_suspends_expired_partners_daily_and_warns_leads_once(mailoutbox):
    today = timezone.localdate()
    expired = PartnerFactory(name="Expired", accredited_until=today - timedelta(days=1))
    expiring = PartnerFactory(name="Expiring", accredited_until=today + timedelta(days=20))
    fine = PartnerFactory(name="Fine", accredited_until=today + timedelta(days=200))
    lead = MembershipFactory(partner=expiring, role="lead", user=UserFactory(email="l@example.com"))
    MembershipFactory(partner=expiring, role="checker")

    assert accreditation_check(today=today) == {"suspended": 1, "warned": 1}
    expired.refresh_from_db()
    fine.refresh_from_db()
    assert expired.status == "suspended"
    assert "expired" in expired.status_reason
    assert fine.status == "active"
    assert len(mailoutbox) == 1
    assert mailoutbox[0].to == [lead.user.email]
    assert "Expiring" in mailoutbox[0].subject
    event = AuditEvent.objects.get(action="partner.suspend")
    assert event.actor_label == "system:accreditation_check"

    # The next day: nothing new to suspend, and no second warning.
    assert accreditation_check(today=today + timedelta(days=1)) == {"suspended": 0, "warned": 0}
    assert len(mailoutbox) == 1


@pytest.mark.django_db
def test_it_deactivates_a_member_and_revokes_their_tokens(
    alice, ada, django_capture_on_commit_callbacks
):
    client, _ = api_client_create(name="tool", scopes=["checker"], user=alice, actor=ada)
    received = []

    def receiver(sender, user, **kwargs):
        received.append(user.pk)

    member_deactivated.connect(receiver)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            member_deactivate(user=alice, actor=ada)
    finally:
        member_deactivated.disconnect(receiver)
    alice.refresh_from_db()
    assert not alice.is_active
    assert ApiClient.objects.get(pk=client.pk).revoked_at is not None
    assert received == [alice.pk]
    assert AuditEvent.objects.filter(action="user.deactivate").count() == 1
