import pytest

from factcheck.celery import app
from factcheck.moderation import services
from factcheck.moderation.apps import webhook_settings_check
from tests.factories import EscalationFactory

pytestmark = pytest.mark.django_db


def test_it_schedules_its_periodic_tasks():
    tasks = {entry["task"] for entry in app.conf.beat_schedule.values()}
    for name in [
        "factcheck.moderation.tasks.escalation_claims_expire",
        "factcheck.moderation.tasks.moderation_reconcile",
    ]:
        assert name in tasks
        assert name in app.tasks


def test_it_warns_when_webhooks_cannot_be_signed(settings):
    settings.FACTCHECK_WEBHOOK_URLS = ["https://hooks.example/moderation"]
    settings.FACTCHECK_WEBHOOK_SECRET = ""
    assert [warning.id for warning in webhook_settings_check(None)] == ["moderation.W001"]
    settings.FACTCHECK_WEBHOOK_SECRET = "s3cret"
    assert webhook_settings_check(None) == []


def test_it_shows_moderation_records_read_only_in_the_admin(client_for, ada, moe):
    escalation = EscalationFactory()
    services.escalation_decide(
        escalation=escalation,
        user=moe,
        action="remove",
        policy_code="hate.exclusion",
        note="n",
        context_flags=[],
        version=escalation.version,
    )
    client = client_for(ada)
    for model in [
        "escalation",
        "notification",
        "webhookdelivery",
        "removal",
        "removalappeal",
    ]:
        assert client.get(f"/admin/moderation/{model}/").status_code == 200, model
    response = client.get(f"/admin/moderation/escalation/{escalation.pk}/change/")
    assert response.status_code == 200
    assert b'name="status"' not in response.content  # nothing to edit
    assert client.get("/admin/moderation/escalation/add/").status_code == 403
