import pytest

from factcheck.celery import app as celery_app


@pytest.mark.django_db
def test_it_reports_database_and_broker_ok(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"database": "ok", "broker": "ok"}


@pytest.mark.django_db
def test_it_answers_503_naming_the_broker_when_it_is_down(client, monkeypatch):
    # Nothing listens on port 1: the broker is down.
    down = celery_app.connection_for_write(url="redis://127.0.0.1:1/0")
    monkeypatch.setattr(celery_app, "connection_for_write", lambda: down)
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["database"] == "ok"
    assert body["broker"].startswith("error")
