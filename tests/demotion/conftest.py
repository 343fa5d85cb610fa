import pytest

from factcheck.ratings.models import VERDICTS_WITHOUT_ARTICLE
from factcheck.ratings.services import rating_create
from tests.factories import make_token
from tests.worker import celery_worker_process  # noqa: F401  the real-worker fixture, shared


@pytest.fixture
def rate(django_capture_on_commit_callbacks):
    """``rate(post, alice, "false")``: a rating through the service, its on-commit signal and
    the (eager) demotion task run as they would after a real commit."""

    def do(post, checker, verdict="false", **fields):
        partner = checker.memberships.get().partner
        fields.setdefault("headline", f"Rated {verdict}")
        if verdict not in VERDICTS_WITHOUT_ARTICLE:
            fields.setdefault("article_url", f"https://factcheck.example/{post.external_id}")
        with django_capture_on_commit_callbacks(execute=True):
            return rating_create(
                post=post, partner=partner, checker=checker, verdict=verdict, **fields
            )

    return do


@pytest.fixture
def ranker_token(db):
    return make_token("demotions:read", name="ranker")


@pytest.fixture
def ranker(client, ranker_token):
    """The test client carrying the ranker's bearer token."""
    client.defaults["HTTP_AUTHORIZATION"] = f"Bearer {ranker_token}"
    return client
