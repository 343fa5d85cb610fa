import pytest

from tests.factories import make_token


@pytest.fixture
def ingest_token(db):
    return make_token("ingest", name="platform")


@pytest.fixture
def ingest(client, ingest_token):
    """``ingest([item, …])`` posts a batch with a valid ingest token; the response."""

    def send(posts, *, token=None, body=None):
        return client.post(
            "/api/v1/posts/ingest",
            {"posts": posts} if body is None else body,
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Bearer {token or ingest_token}",
        )

    return send
