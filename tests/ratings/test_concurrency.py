import threading

import pytest
from django.db import connections

from factcheck.ratings.models import Rating
from factcheck.ratings.services import rating_create
from tests.factories import PostFactory

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_it_numbers_simultaneous_versions_of_one_partner_without_a_clash(alice, anna):
    post = PostFactory()
    partner = alice.memberships.get().partner
    barrier = threading.Barrier(4)
    errors = []

    def rate(checker, verdict):
        try:
            barrier.wait(30)
            rating_create(
                post=post,
                partner=partner,
                checker=checker,
                verdict=verdict,
                headline=verdict,
                article_url="https://factcheck.example/a",
            )
        except Exception as exc:  # reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [
        threading.Thread(target=rate, args=(checker, verdict))
        for checker, verdict in [(alice, "false"), (anna, "altered")] * 2
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    ratings = list(Rating.objects.filter(post=post).order_by("version"))
    assert [rating.version for rating in ratings] == [1, 2, 3, 4]
    assert [rating.supersedes_id for rating in ratings] == [None] + [r.pk for r in ratings[:3]]
