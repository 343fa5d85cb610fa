import pytest
from django.core.management import call_command

from factcheck.partners.models import Membership, Partner, User


@pytest.mark.django_db
def test_it_seeds_the_demo_logins_and_twice_creates_no_duplicates(capsys):
    from factcheck.demotion.models import AuthorStanding, Demotion
    from factcheck.posts.models import Post
    from factcheck.ratings.models import Rating

    def counts():
        return [
            model.objects.count() for model in (Partner, User, Membership, Post, Rating, Demotion)
        ]

    call_command("demo", "--seed-only", "--password", "s3cret-demo")
    first = counts()
    call_command("demo", "--seed-only", "--password", "s3cret-demo")
    assert counts() == first
    assert Post.objects.count() >= 300
    # Some posts are rated and demoted already, and one author is a repeat offender.
    assert Rating.objects.count() >= 10
    assert Demotion.objects.filter(multiplier__lt=1).exists()
    assert AuthorStanding.objects.filter(multiplier=0.5).exists()
    out = capsys.readouterr().out
    assert "http://127.0.0.1:8000/" in out
    for email in [
        "admin@example.com",
        "moderator@example.com",
        "lead1@example.com",
        "checker1@example.com",
        "checker2@example.com",
    ]:
        assert email in out
        assert User.objects.get(email=email).check_password("s3cret-demo")
    assert Partner.objects.count() == 3
    languages = {tuple(p.languages) for p in Partner.objects.all()}
    assert len(languages) == 3
    assert sum(not p.is_accredited for p in Partner.objects.all()) == 1
    checker1 = Membership.objects.get(user__email="checker1@example.com")
    checker2 = Membership.objects.get(user__email="checker2@example.com")
    assert checker1.partner.languages == ["en"]
    assert checker2.partner.languages == ["es"]
    assert Membership.objects.get(user__email="lead1@example.com").role == "lead"
    assert User.objects.get(email="admin@example.com").is_superuser
    assert User.objects.get(email="moderator@example.com").groups.filter(name="moderators").exists()
