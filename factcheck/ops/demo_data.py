"""Demo data: partners and people (and, from the posts app on, synthetic posts). Seeding is
idempotent: every object is looked up by a natural key before it is created."""

from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth.models import Group
from django.db import transaction
from django.utils import timezone

from factcheck.partners.models import MODERATORS_GROUP, Membership, Partner, User


@dataclass(frozen=True)
class DemoLogin:
    email: str
    role: str


PARTNERS = [
    # slug, name, languages, countries, accreditation id, days of accreditation left
    ("northwind-facts", "Northwind Facts", ["en"], ["US", "GB", "IE"], "IFCN-0142", 300),
    ("verifica-latam", "Verifica Latam", ["es"], ["MX", "AR", "CO", "ES"], "IFCN-0278", 200),
    ("verite-europe", "Vérité Europe", ["fr"], ["FR", "BE", "CH"], "IFCN-0311", -12),
]

PEOPLE = [
    # email, name, partner slug, role, moderator, admin
    ("admin@example.com", "Ada Admin", None, None, False, True),
    ("moderator@example.com", "Moe Moderator", None, None, True, False),
    ("lead1@example.com", "Lena Lead", "northwind-facts", Membership.Role.LEAD, False, False),
    (
        "checker1@example.com",
        "Chris Checker",
        "northwind-facts",
        Membership.Role.CHECKER,
        False,
        False,
    ),
    (
        "checker2@example.com",
        "Carla Comprobadora",
        "verifica-latam",
        Membership.Role.CHECKER,
        False,
        False,
    ),
    (
        "checker3@example.com",
        "Camille Contrôleuse",
        "verite-europe",
        Membership.Role.CHECKER,
        False,
        False,
    ),
]


def seed_people(*, password: str) -> list[DemoLogin]:
    today = timezone.localdate()
    with transaction.atomic():
        partners = {}
        for slug, name, languages, countries, accreditation_id, days_left in PARTNERS:
            partner, _ = Partner.objects.get_or_create(
                slug=slug,
                defaults={
                    "name": name,
                    "languages": languages,
                    "countries": countries,
                    "accreditation_body": "International Fact-Checking Network",
                    "accreditation_id": accreditation_id,
                    "accredited_until": today + timedelta(days=days_left),
                },
            )
            partners[slug] = partner
        moderators, _ = Group.objects.get_or_create(name=MODERATORS_GROUP)
        logins = []
        for email, name, partner_slug, role, moderator, admin in PEOPLE:
            user = User.objects.filter(email=email).first()
            if user is None:
                user = User.objects.create_user(
                    email=email, password=password, name=name, is_staff=admin, is_superuser=admin
                )
            else:
                user.set_password(password)
                user.save(update_fields=["password"])
            if partner_slug:
                Membership.objects.get_or_create(
                    user=user, defaults={"partner": partners[partner_slug], "role": role}
                )
            if moderator:
                user.groups.add(moderators)
            label = (
                "admin"
                if admin
                else "moderator"
                if moderator
                else f"{role} at {partners[partner_slug].name}"
            )
            if partner_slug and not partners[partner_slug].is_accredited:
                label += " (accreditation expired)"
            logins.append(DemoLogin(email=email, role=label))
    return logins


@dataclass
class SeedSummary:
    logins: list[DemoLogin]
    lines: list[str]


def seed(*, password: str, progress=print) -> SeedSummary:
    logins = seed_people(password=password)
    lines = [f"{Partner.objects.count()} partners, {User.objects.count()} people"]
    return SeedSummary(logins=logins, lines=lines)
