from datetime import date, timedelta

from django.conf import settings
from django.contrib.auth.forms import PasswordResetForm
from django.contrib.auth.models import Group
from django.contrib.auth.tokens import default_token_generator
from django.core.mail import send_mass_mail
from django.db import transaction
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from factcheck.core.services import audit_record, model_snapshot
from factcheck.partners.models import MODERATORS_GROUP, ApiClient, Membership, Partner, User
from factcheck.partners.signals import member_deactivated, partner_suspended

PARTNER_AUDIT_FIELDS = [
    "name",
    "slug",
    "countries",
    "languages",
    "accreditation_body",
    "accreditation_id",
    "accredited_until",
    "status",
    "status_reason",
]


def _send_partner_suspended(partner: Partner) -> None:
    transaction.on_commit(lambda: partner_suspended.send(sender=Partner, partner=partner))


def partner_suspend(*, partner: Partner, actor, reason: str = "") -> Partner:
    with transaction.atomic():
        partner = Partner.objects.select_for_update().get(pk=partner.pk)
        before = model_snapshot(partner, PARTNER_AUDIT_FIELDS)
        partner.status = Partner.Status.SUSPENDED
        partner.status_reason = reason
        partner.full_clean()
        partner.save(update_fields=["status", "status_reason"])
        audit_record(
            actor=actor,
            action="partner.suspend",
            obj=partner,
            before=before,
            after=model_snapshot(partner, PARTNER_AUDIT_FIELDS),
        )
        _send_partner_suspended(partner)
    return partner


def partner_reinstate(*, partner: Partner, actor) -> Partner:
    with transaction.atomic():
        partner = Partner.objects.select_for_update().get(pk=partner.pk)
        before = model_snapshot(partner, PARTNER_AUDIT_FIELDS)
        partner.status = Partner.Status.ACTIVE
        partner.status_reason = ""
        partner.save(update_fields=["status", "status_reason"])
        audit_record(
            actor=actor,
            action="partner.reinstate",
            obj=partner,
            before=before,
            after=model_snapshot(partner, PARTNER_AUDIT_FIELDS),
        )
    return partner


def partner_extend_accreditation(*, partner: Partner, actor, until: date) -> Partner:
    with transaction.atomic():
        partner = Partner.objects.select_for_update().get(pk=partner.pk)
        before = model_snapshot(partner, PARTNER_AUDIT_FIELDS)
        partner.accredited_until = until
        partner.expiry_warning_sent_for = None
        partner.save(update_fields=["accredited_until", "expiry_warning_sent_for"])
        audit_record(
            actor=actor,
            action="partner.extend_accreditation",
            obj=partner,
            before=before,
            after=model_snapshot(partner, PARTNER_AUDIT_FIELDS),
        )
    return partner


def partner_save(*, partner: Partner, actor, created: bool, before: dict | None) -> Partner:
    """Create or edit a partner from the admin form, audited. Suspending through the form
    behaves like the suspend action."""
    with transaction.atomic():
        partner.full_clean()
        partner.save()
        after = model_snapshot(partner, PARTNER_AUDIT_FIELDS)
        if created or after != before:
            audit_record(
                actor=actor,
                action="partner.create" if created else "partner.change",
                obj=partner,
                before=before,
                after=after,
            )
        was_active = before is None or before["status"] == Partner.Status.ACTIVE
        if partner.status == Partner.Status.SUSPENDED and was_active:
            _send_partner_suspended(partner)
    return partner


def accreditation_check(*, today: date | None = None) -> dict[str, int]:
    """Daily: suspend partners whose accreditation has expired, and warn the leads of those
    expiring within the warning window (once per accreditation date)."""
    today = today or timezone.localdate()
    suspended = 0
    for partner in Partner.objects.filter(status=Partner.Status.ACTIVE, accredited_until__lt=today):
        partner_suspend(
            partner=partner,
            actor="system:accreditation_check",
            reason=f"Accreditation expired on {partner.accredited_until:%Y-%m-%d}.",
        )
        suspended += 1

    horizon = today + timedelta(days=settings.FACTCHECK_ACCREDITATION_WARNING_DAYS)
    expiring = Partner.objects.filter(
        status=Partner.Status.ACTIVE, accredited_until__gte=today, accredited_until__lte=horizon
    ).prefetch_related("memberships__user")
    messages = []
    warned = []
    for partner in expiring:
        if partner.expiry_warning_sent_for == partner.accredited_until:
            continue
        leads = [
            m.user.email
            for m in partner.memberships.all()
            if m.role == Membership.Role.LEAD and m.user.is_active
        ]
        if leads:
            messages.append(
                (
                    f"{partner.name}: accreditation expires on {partner.accredited_until:%Y-%m-%d}",
                    f"The accreditation of {partner.name} expires on "
                    f"{partner.accredited_until:%Y-%m-%d}. After that date its fact-checkers "
                    "can no longer claim or rate posts until an administrator extends it.",
                    settings.DEFAULT_FROM_EMAIL,
                    leads,
                )
            )
        warned.append(partner.pk)
    # Mark first, then mail: a crash between the two loses a reminder, never spams leads.
    for partner in expiring:
        if partner.pk in warned:
            Partner.objects.filter(pk=partner.pk).update(
                expiry_warning_sent_for=partner.accredited_until
            )
    if messages:
        send_mass_mail(messages, fail_silently=False)
    return {"suspended": suspended, "warned": len(warned)}


def user_invite(
    *,
    email: str,
    name: str,
    actor,
    partner: Partner | None = None,
    role: str = Membership.Role.CHECKER,
    moderator: bool = False,
    request=None,
) -> User:
    """Create an account without a password and email a link to set one (Django's password
    reset machinery, so the link is single-use and expires)."""
    with transaction.atomic():
        user = User.objects.create_user(email=email, name=name)
        if partner is not None:
            Membership.objects.create(user=user, partner=partner, role=role)
        if moderator:
            group, _ = Group.objects.get_or_create(name=MODERATORS_GROUP)
            user.groups.add(group)
        audit_record(
            actor=actor,
            action="user.invite",
            obj=user,
            after={
                "email": user.email,
                "partner": partner.name if partner else None,
                "role": role if partner else None,
                "moderator": moderator,
            },
        )
        transaction.on_commit(lambda: user_send_invite(user=user, request=request))
    return user


def user_send_invite(*, user: User, request=None) -> None:
    """Email a set-password link. PasswordResetForm.save() skips accounts without a usable
    password, so this builds its context and uses the form's mailer directly."""
    if request is not None:
        protocol, domain = ("https" if request.is_secure() else "http"), request.get_host()
    else:
        protocol, _, domain = settings.FACTCHECK_BASE_URL.partition("://")
    context = {
        "email": user.email,
        "domain": domain,
        "site_name": "factcheck",
        "uid": urlsafe_base64_encode(force_bytes(user.pk)),
        "user": user,
        "token": default_token_generator.make_token(user),
        "protocol": protocol,
    }
    PasswordResetForm().send_mail(
        "registration/invite_subject.txt",
        "registration/invite_email.txt",
        context,
        settings.DEFAULT_FROM_EMAIL,
        user.email,
    )


def member_deactivate(*, user: User, actor) -> User:
    with transaction.atomic():
        user = User.objects.select_for_update().get(pk=user.pk)
        if not user.is_active:
            return user
        user.is_active = False
        user.save(update_fields=["is_active"])
        # Their personal tokens stop working with the account.
        ApiClient.objects.filter(user=user, revoked_at__isnull=True).update(
            revoked_at=timezone.now()
        )
        audit_record(
            actor=actor,
            action="user.deactivate",
            obj=user,
            before={"is_active": True},
            after={"is_active": False},
        )
        transaction.on_commit(lambda: member_deactivated.send(sender=User, user=user))
    return user


def api_client_create(
    *, name: str, scopes: list[str], actor, user: User | None = None
) -> tuple[ApiClient, str]:
    """Returns the client and its token, which is shown once and never stored."""
    valid = set(ApiClient.Scope.values)
    unknown = [scope for scope in scopes if scope not in valid]
    if unknown:
        raise ValueError(
            f"Unknown scope(s): {', '.join(unknown)}. Valid: {', '.join(sorted(valid))}."
        )
    if not scopes:
        raise ValueError("A token needs at least one scope.")
    if ApiClient.Scope.CHECKER in scopes:
        if user is None:
            raise ValueError("A personal token (scope checker) needs the user it acts as.")
        if len(scopes) > 1:
            raise ValueError("A personal token (scope checker) carries no service scopes.")
    elif user is not None:
        raise ValueError("Only personal tokens (scope checker) belong to a user.")
    token = ApiClient.generate_token()
    with transaction.atomic():
        client = ApiClient.objects.create(
            name=name,
            scopes=list(scopes),
            user=user,
            token_hash=ApiClient.hash_token(token),
            token_prefix=token[:10],
            created_by=actor if isinstance(actor, User) else None,
        )
        audit_record(
            actor=actor,
            action="api_client.create",
            obj=client,
            after={"name": name, "scopes": list(scopes), "user": user.email if user else None},
        )
    return client, token


def api_client_revoke(*, client: ApiClient, actor) -> ApiClient:
    with transaction.atomic():
        updated = ApiClient.objects.filter(pk=client.pk, revoked_at__isnull=True).update(
            revoked_at=timezone.now()
        )
        if updated:
            audit_record(
                actor=actor, action="api_client.revoke", obj=client, after={"revoked": True}
            )
    client.refresh_from_db()
    return client
