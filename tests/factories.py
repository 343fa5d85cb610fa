"""factory_boy factories. Each app's factories have their own section; add to yours."""

from datetime import timedelta

import factory
from django.utils import timezone

from factcheck.partners.models import ApiClient, Membership, Partner, User
from factcheck.posts.models import EngagementSnapshot, Post

# --- partners -------------------------------------------------------------------------------


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        django_get_or_create = ["email"]

    email = factory.Sequence(lambda n: f"user{n}@example.com")
    name = factory.Faker("name")
    password = factory.django.Password("correct horse battery staple")


class PartnerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Partner

    name = factory.Sequence(lambda n: f"Partner {n}")
    slug = factory.Sequence(lambda n: f"partner-{n}")
    languages = factory.LazyFunction(lambda: ["en"])
    countries = factory.LazyFunction(lambda: ["US"])
    accreditation_body = "IFCN"
    accreditation_id = factory.Sequence(lambda n: f"IFCN-{n:04d}")
    accredited_until = factory.LazyFunction(lambda: timezone.localdate() + timedelta(days=365))


class MembershipFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Membership

    user = factory.SubFactory(UserFactory)
    partner = factory.SubFactory(PartnerFactory)
    role = Membership.Role.CHECKER


def make_token(*scopes: str, user: User | None = None, name: str = "test client") -> str:
    """Create an API client and return its bearer token."""
    from factcheck.partners.services import api_client_create

    _, token = api_client_create(name=name, scopes=list(scopes), user=user, actor="system:test")
    return token


# --- posts ----------------------------------------------------------------------------------


class PostFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Post

    external_id = factory.Sequence(lambda n: f"post-{n}")
    author_external_id = factory.Sequence(lambda n: f"author-{n}")
    author_name = factory.Faker("name")
    url = factory.LazyAttribute(lambda o: f"https://social.example/p/{o.external_id}")
    text = factory.Faker("sentence", nb_words=16)
    language = "en"
    language_tag = "en"
    country = "US"
    published_at = factory.LazyFunction(lambda: timezone.now() - timedelta(hours=3))
    observed_at = factory.LazyFunction(timezone.now)
    shares = 100
    views = 1000
    trending_score = factory.Sequence(lambda n: float(1000 - n))


class SnapshotFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = EngagementSnapshot

    post = factory.SubFactory(PostFactory)
    observed_at = factory.LazyFunction(timezone.now)
    shares = 100
    views = 1000


ApiClientModel = ApiClient  # re-exported for tests that look clients up


# --- ratings --------------------------------------------------------------------------------


class RatingFactory(factory.django.DjangoModelFactory):
    """A stored rating, for setting up history. Tests of rating itself go through
    ``factcheck.ratings.services.rating_create``."""

    class Meta:
        model = "ratings.Rating"

    post = factory.SubFactory(PostFactory)
    partner = factory.SubFactory(PartnerFactory)
    checker = None
    verdict = "false"
    headline = factory.Faker("sentence", nb_words=8)
    article_url = factory.Sequence(lambda n: f"https://factcheck.example/articles/{n}")
    version = 1


# --- moderation -----------------------------------------------------------------------------


class EscalationFactory(factory.django.DjangoModelFactory):
    """An open escalation as a fixture; tests of escalating go through
    ``factcheck.moderation.services.escalation_signal_add``."""

    class Meta:
        model = "moderation.Escalation"

    post = factory.SubFactory(PostFactory)
    status = "open"
    tier = 2  # moderation.models.Tier.HIGH
    sla_due_at = factory.LazyFunction(lambda: timezone.now() + timedelta(hours=24))
    categories = factory.LazyFunction(lambda: ["violence"])
    sources = factory.LazyFunction(lambda: ["checker_flag"])
