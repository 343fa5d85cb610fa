from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from factcheck.core.models import AuditEvent
from factcheck.partners.access import PartnerCannotAct
from factcheck.partners.services import member_deactivate, partner_suspend
from factcheck.posts.models import Post
from factcheck.review import services, tasks
from factcheck.review.models import Claim, Skip
from tests.factories import MembershipFactory, PartnerFactory, PostFactory, UserFactory
from tests.review.factories import ClaimFactory, SkipFactory

pytestmark = pytest.mark.django_db


def fresh(user):
    """The same user without the per-object membership cache, as a new request would see it."""
    return type(user).objects.get(pk=user.pk)


def test_it_claims_the_most_trending_queued_post_in_the_partners_languages(alice, settings):
    settings.FACTCHECK_CLAIM_MINUTES = 15
    PostFactory(trending_score=5, external_id="low")
    PostFactory(trending_score=50, external_id="top")
    PostFactory(trending_score=500, language="es", external_id="spanish")
    PostFactory(trending_score=900, status=Post.Status.RATED, external_id="rated")

    before = timezone.now()
    claim = services.claim_next(user=alice)

    assert claim.post.external_id == "top"
    assert claim.state == Claim.State.ACTIVE
    assert claim.partner.name == "Partner A"
    assert (
        before + timedelta(minutes=15) <= claim.expires_at <= timezone.now() + timedelta(minutes=15)
    )
    assert Post.objects.get(external_id="top").status == Post.Status.IN_REVIEW
    event = AuditEvent.objects.get(action="claim.create")
    assert event.actor == alice
    assert event.object_id == str(claim.pk)


def test_it_hands_out_posts_one_after_another_in_trending_order(alice, settings):
    settings.FACTCHECK_MAX_CLAIMS = 10
    for score in [3, 9, 1, 7]:
        PostFactory(trending_score=score, external_id=f"p{score}")
    taken = [services.claim_next(user=alice).post.external_id for _ in range(4)]
    assert taken == ["p9", "p7", "p3", "p1"]
    assert services.claim_next(user=alice) is None


def test_it_ranks_across_all_of_a_partners_languages(db):
    partner = PartnerFactory(languages=["en", "pt-BR"])
    user = MembershipFactory(partner=partner).user
    PostFactory(language="en", trending_score=10)
    PostFactory(language="pt", language_tag="pt-BR", trending_score=20, external_id="pt")
    PostFactory(language="fr", trending_score=30)
    assert services.claim_next(user=user).post.external_id == "pt"


def test_it_passes_over_posts_held_by_a_live_claim(alice, anna):
    PostFactory(trending_score=10, external_id="second")
    held = ClaimFactory(partner=alice.memberships.get().partner, post__trending_score=99)
    assert held.post.status == Post.Status.IN_REVIEW
    assert services.claim_next(user=anna).post.external_id == "second"


def test_it_treats_an_expired_lease_as_free_and_ends_it(alice, anna, partner_a):
    old = timezone.now() - timedelta(hours=1)
    stale = ClaimFactory(checker=alice, partner=partner_a, claimed_at=old, post__trending_score=99)
    PostFactory(trending_score=10)

    claim = services.claim_next(user=anna)

    assert claim.post == stale.post
    stale.refresh_from_db()
    assert stale.state == Claim.State.EXPIRED
    assert stale.ended_at is not None
    assert Claim.objects.filter(post=stale.post, state=Claim.State.ACTIVE).get() == claim
    assert AuditEvent.objects.filter(action="claim.expire", object_id=str(stale.pk)).exists()


def test_it_returns_none_when_nothing_is_eligible(alice):
    PostFactory(language="es")
    assert services.claim_next(user=alice) is None
    assert not Claim.objects.exists()


def test_it_refuses_past_the_claim_limit(alice, settings):
    settings.FACTCHECK_MAX_CLAIMS = 2
    PostFactory.create_batch(4)
    services.claim_next(user=alice)
    services.claim_next(user=alice)
    with pytest.raises(services.ClaimLimitReached, match="2 claims"):
        services.claim_next(user=alice)
    assert Claim.objects.filter(checker=alice).count() == 2


def test_it_does_not_count_expired_leases_against_the_limit(alice, partner_a, settings):
    settings.FACTCHECK_MAX_CLAIMS = 1
    ClaimFactory(checker=alice, partner=partner_a, claimed_at=timezone.now() - timedelta(hours=2))
    PostFactory()
    assert services.claim_next(user=alice) is not None


def test_it_refuses_a_suspended_partner(alice, partner_a):
    PostFactory()
    partner_a.status = partner_a.Status.SUSPENDED
    partner_a.save()
    with pytest.raises(PartnerCannotAct):
        services.claim_next(user=fresh(alice))
    assert not Claim.objects.exists()


def test_it_refuses_a_partner_whose_accreditation_expired(alice, partner_a):
    PostFactory()
    partner_a.accredited_until = timezone.localdate() - timedelta(days=1)
    partner_a.save()
    with pytest.raises(PartnerCannotAct, match="accreditation expired"):
        services.claim_next(user=fresh(alice))


def test_it_refuses_people_without_a_partner(moe, ada):
    PostFactory()
    for user in (moe, ada):
        with pytest.raises(PermissionDenied):
            services.claim_next(user=user)


def test_it_rechecks_the_partner_inside_the_transaction(alice, partner_a):
    """A suspension committed after the membership was cached still stops the claim."""
    PostFactory()
    from factcheck.partners.access import checker_membership

    checker_membership(alice)  # caches an active partner on this user object
    partner_a.status = partner_a.Status.SUSPENDED
    partner_a.save()
    with pytest.raises(PartnerCannotAct):
        services.claim_next(user=alice)


def test_the_database_refuses_two_active_claims_on_one_post(partner_a):
    claim = ClaimFactory(partner=partner_a)
    with pytest.raises(IntegrityError), transaction.atomic():
        ClaimFactory(partner=partner_a, post=claim.post)


def test_release_puts_the_post_back_in_the_queue(alice, partner_a):
    claim = ClaimFactory(checker=alice, partner=partner_a)
    services.claim_release(claim=claim, user=alice)
    claim.refresh_from_db()
    assert claim.state == Claim.State.RELEASED
    assert claim.ended_at is not None
    assert claim.post.__class__.objects.get(pk=claim.post_id).status == Post.Status.QUEUED
    assert AuditEvent.objects.filter(action="claim.release", actor=alice).count() == 1


def test_release_refuses_someone_elses_claim(alice, anna, partner_a):
    claim = ClaimFactory(checker=alice, partner=partner_a)
    with pytest.raises(PermissionDenied):
        services.claim_release(claim=claim, user=anna)
    claim.refresh_from_db()
    assert claim.state == Claim.State.ACTIVE


def test_release_refuses_a_claim_that_already_ended(alice, partner_a):
    claim = ClaimFactory(checker=alice, partner=partner_a)
    services.claim_release(claim=claim, user=alice)
    with pytest.raises(services.ClaimNotActive, match="released"):
        services.claim_release(claim=claim, user=alice)
    assert AuditEvent.objects.filter(action="claim.release").count() == 1


def test_skip_hides_the_post_from_the_partner_only(alice, anna, partner_a):
    other_en = PartnerFactory(languages=["en"])
    carl = MembershipFactory(partner=other_en).user
    post = PostFactory(trending_score=100)
    claim = services.claim_next(user=alice)
    assert claim.post == post

    services.claim_skip(claim=claim, user=alice, reason="cannot_verify", note="No sources online")

    claim.refresh_from_db()
    assert claim.state == Claim.State.SKIPPED
    skip = Skip.objects.get()
    assert (skip.post, skip.partner, skip.checker, skip.reason, skip.note) == (
        post,
        partner_a,
        alice,
        "cannot_verify",
        "No sources online",
    )
    assert Post.objects.get(pk=post.pk).status == Post.Status.QUEUED
    assert services.claim_next(user=anna) is None
    assert services.claim_next(user=alice) is None
    assert services.claim_next(user=carl).post == post


def test_skip_with_a_bad_reason_changes_nothing(alice, partner_a):
    claim = ClaimFactory(checker=alice, partner=partner_a)
    with pytest.raises(ValidationError) as error:
        services.claim_skip(claim=claim, user=alice, reason="bored")
    assert "reason" in error.value.message_dict
    claim.refresh_from_db()
    assert claim.state == Claim.State.ACTIVE
    assert not Skip.objects.exists()


def test_claims_expire_returns_stale_leases_to_the_queue(partner_a):
    now = timezone.now()
    stale = ClaimFactory(partner=partner_a, claimed_at=now - timedelta(minutes=30))
    live = ClaimFactory(partner=partner_a, claimed_at=now - timedelta(minutes=5))

    assert tasks.claims_expire.delay().get() == 1
    assert tasks.claims_expire.delay().get() == 0  # idempotent: a second run finds nothing

    stale.refresh_from_db()
    live.refresh_from_db()
    assert stale.state == Claim.State.EXPIRED
    assert Post.objects.get(pk=stale.post_id).status == Post.Status.QUEUED
    assert live.state == Claim.State.ACTIVE
    assert Post.objects.get(pk=live.post_id).status == Post.Status.IN_REVIEW
    assert AuditEvent.objects.filter(action="claim.expire").count() == 1


def test_claims_expire_leaves_a_post_that_moved_on_alone(partner_a):
    stale = ClaimFactory(partner=partner_a, claimed_at=timezone.now() - timedelta(hours=1))
    Post.objects.filter(pk=stale.post_id).update(status=Post.Status.REMOVED)
    services.claims_expire()
    assert Post.objects.get(pk=stale.post_id).status == Post.Status.REMOVED


def test_claims_expire_works_through_many_in_batches(partner_a):
    old = timezone.now() - timedelta(hours=1)
    ClaimFactory.create_batch(7, partner=partner_a, claimed_at=old)
    assert services.claims_expire(batch=3) == 7
    assert not Claim.objects.filter(state=Claim.State.ACTIVE).exists()


def test_suspending_a_partner_releases_all_its_claims_at_once(
    alice, anna, bob, partner_a, ada, django_capture_on_commit_callbacks
):
    mine = [ClaimFactory(checker=alice, partner=partner_a) for _ in range(2)]
    mine.append(ClaimFactory(checker=anna, partner=partner_a))
    theirs = ClaimFactory(checker=bob, partner=bob.memberships.get().partner)

    with django_capture_on_commit_callbacks(execute=True):
        partner_suspend(partner=partner_a, actor=ada, reason="Audit")

    for claim in mine:
        claim.refresh_from_db()
        assert claim.state == Claim.State.RELEASED
        assert Post.objects.get(pk=claim.post_id).status == Post.Status.QUEUED
    theirs.refresh_from_db()
    assert theirs.state == Claim.State.ACTIVE
    assert (
        AuditEvent.objects.filter(
            action="claim.release", actor_label="system:partner_suspended"
        ).count()
        == 3
    )


def test_deactivating_a_member_releases_their_claims(
    alice, anna, partner_a, ada, django_capture_on_commit_callbacks
):
    hers = ClaimFactory(checker=alice, partner=partner_a)
    colleague = ClaimFactory(checker=anna, partner=partner_a)
    with django_capture_on_commit_callbacks(execute=True):
        member_deactivate(user=alice, actor=ada)
    hers.refresh_from_db()
    colleague.refresh_from_db()
    assert hers.state == Claim.State.RELEASED
    assert colleague.state == Claim.State.ACTIVE


def test_skips_are_per_partner(partner_a, partner_b):
    post = PostFactory()
    SkipFactory(post=post, partner=partner_a)
    SkipFactory(post=post, partner=partner_b)
    with pytest.raises(IntegrityError), transaction.atomic():
        SkipFactory(post=post, partner=partner_a)


def test_a_checker_without_languages_gets_nothing(db):
    user = MembershipFactory(partner=PartnerFactory(languages=[])).user
    PostFactory()
    assert services.claim_next(user=user) is None


def test_it_refuses_a_user_who_is_not_active(partner_a):
    user = MembershipFactory(partner=partner_a, user=UserFactory(is_active=False)).user
    PostFactory()
    with pytest.raises(PermissionDenied):
        services.claim_next(user=user)
