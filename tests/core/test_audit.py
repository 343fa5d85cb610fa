import pytest

from factcheck.core.models import AuditEvent
from factcheck.core.services import audit_record


@pytest.mark.django_db
def test_it_records_actor_object_and_request_id(ada, partner_a):
    from factcheck.core.request_context import current_request_id

    token = current_request_id.set("req-123")
    try:
        event = audit_record(actor=ada, action="partner.suspend", obj=partner_a, before={"a": 1})
    finally:
        current_request_id.reset(token)
    assert event.actor == ada
    assert event.actor_label == "ada@example.com"
    assert event.object_type == "partners.partner"
    assert event.object_id == str(partner_a.pk)
    assert event.object_repr == "Partner A"
    assert event.request_id == "req-123"


@pytest.mark.django_db
def test_it_refuses_to_change_or_delete_an_event(partner_a):
    event = audit_record(actor="system:test", action="x", obj=partner_a)
    event.action = "y"
    with pytest.raises(ValueError):
        event.save()
    with pytest.raises(ValueError):
        event.delete()
    assert AuditEvent.objects.get().action == "x"


@pytest.mark.django_db
def test_it_tags_requests_with_an_id(client):
    response = client.get("/healthz", HTTP_X_REQUEST_ID="abc-1")
    assert response["X-Request-ID"] == "abc-1"
    response = client.get("/healthz", HTTP_X_REQUEST_ID="<script>")
    assert response["X-Request-ID"] != "<script>"
