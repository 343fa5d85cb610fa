"""Factories of the review app (kept beside its tests; tests/factories.py has the shared ones)."""

from datetime import timedelta

import factory
from django.utils import timezone

from factcheck.posts.models import Post
from factcheck.review.models import Claim, Skip
from tests.factories import MembershipFactory, PostFactory


class ClaimFactory(factory.django.DjangoModelFactory):
    """An active claim; the post is marked in_review, as claim_next leaves it."""

    class Meta:
        model = Claim

    post = factory.SubFactory(PostFactory, status=Post.Status.IN_REVIEW)
    checker = factory.LazyAttribute(lambda o: MembershipFactory(partner=o.partner).user)
    partner = factory.SubFactory("tests.factories.PartnerFactory")
    claimed_at = factory.LazyFunction(timezone.now)
    expires_at = factory.LazyAttribute(lambda o: o.claimed_at + timedelta(minutes=20))


class SkipFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Skip

    post = factory.SubFactory(PostFactory)
    partner = factory.SubFactory("tests.factories.PartnerFactory")
    reason = Skip.Reason.CANNOT_VERIFY
