"""The cast (STYLE): alice and anna are checkers at partner A (English), bob at partner B
(Spanish), lena leads partner A, moe is a moderator, ada is an admin."""

import os

import pytest
from django.contrib.auth.models import Group
from django.db import connection

from factcheck.celery import app as celery_app
from factcheck.partners.models import MODERATORS_GROUP, Membership
from tests.factories import MembershipFactory, PartnerFactory, UserFactory

PASSWORD = "correct horse battery staple"


@pytest.fixture(autouse=True)
def _eager_celery(settings):
    """Tasks run in-process when their on-commit callbacks run (captured with
    django_capture_on_commit_callbacks(execute=True)). Worker tests switch this off."""
    celery_app.conf.task_always_eager = True
    celery_app.conf.task_eager_propagates = True
    yield
    celery_app.conf.task_always_eager = False


@pytest.fixture(autouse=True)
def _fast_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def partner_a(db):
    return PartnerFactory(name="Partner A", slug="partner-a", languages=["en"])


@pytest.fixture
def partner_b(db):
    return PartnerFactory(name="Partner B", slug="partner-b", languages=["es"])


@pytest.fixture
def alice(partner_a):
    return MembershipFactory(
        user=UserFactory(email="alice@example.com", name="Alice"), partner=partner_a
    ).user


@pytest.fixture
def anna(partner_a):
    return MembershipFactory(
        user=UserFactory(email="anna@example.com", name="Anna"), partner=partner_a
    ).user


@pytest.fixture
def bob(partner_b):
    return MembershipFactory(
        user=UserFactory(email="bob@example.com", name="Bob"), partner=partner_b
    ).user


@pytest.fixture
def lena(partner_a):
    return MembershipFactory(
        user=UserFactory(email="lena@example.com", name="Lena"),
        partner=partner_a,
        role=Membership.Role.LEAD,
    ).user


@pytest.fixture
def moe(db):
    user = UserFactory(email="moe@example.com", name="Moe")
    user.groups.add(Group.objects.get_or_create(name=MODERATORS_GROUP)[0])
    return user


@pytest.fixture
def ada(db):
    return UserFactory(email="ada@example.com", name="Ada", is_staff=True, is_superuser=True)


@pytest.fixture
def client_for(client):
    """``client_for(alice)``: the test client logged in as that user (or anonymous for None)."""

    def login(user):
        client.logout()
        if user is not None:
            client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
        return client

    return login


def _require(env_name: str) -> bool:
    return os.environ.get(env_name, "") in {"1", "true", "yes"}


def pytest_collection_modifyitems(config, items):
    """PostgreSQL-only and browser tests skip where those are missing, except where the
    environment requires them (CI), where they must run and fail loudly instead."""
    on_postgres = os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))
    has_browser = os.path.exists(os.environ.get("FACTCHECK_CHROMIUM", "/usr/bin/chromium"))
    for item in items:
        if (
            "postgres" in item.keywords
            and not on_postgres
            and not _require("FACTCHECK_REQUIRE_POSTGRES")
        ):
            item.add_marker(pytest.mark.skip(reason="needs PostgreSQL: set DATABASE_URL"))
        if (
            "browser" in item.keywords
            and not has_browser
            and not _require("FACTCHECK_REQUIRE_BROWSER")
        ):
            item.add_marker(pytest.mark.skip(reason="needs Chromium at /usr/bin/chromium"))


@pytest.fixture
def on_postgres():
    return connection.vendor == "postgresql"
