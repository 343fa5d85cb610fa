import hashlib

import pytest

from factcheck.core.models import AuditEvent
from factcheck.partners.models import ApiClient, Membership, Partner, User


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("who", "status"),
    [("anonymous", 302), ("alice", 302), ("bob", 302), ("lena", 302), ("moe", 302), ("ada", 200)],
)
def test_it_lets_only_admins_into_the_admin(request, client_for, who, status):
    user = None if who == "anonymous" else request.getfixturevalue(who)
    response = client_for(user).get("/admin/partners/partner/")
    assert response.status_code == status
    if status == 302:
        assert "/admin/login/" in response["Location"]


@pytest.mark.django_db
def test_it_creates_a_partner_audited(client_for, ada):
    client = client_for(ada)
    response = client.post(
        "/admin/partners/partner/add/",
        {
            "name": "Fact Finders",
            "slug": "fact-finders",
            "countries": '["DE"]',
            "languages": '["de"]',
            "accreditation_body": "IFCN",
            "accreditation_id": "IFCN-1",
            "accredited_until": "2030-01-01",
            "status": "active",
            "status_reason": "",
            "memberships-TOTAL_FORMS": "0",
            "memberships-INITIAL_FORMS": "0",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    partner = Partner.objects.get(slug="fact-finders")
    event = AuditEvent.objects.get(action="partner.create")
    assert event.object_id == str(partner.pk)
    assert event.after["languages"] == ["de"]


@pytest.mark.django_db
def test_it_lists_partners_with_status_expiry_and_member_count(client_for, ada, alice, anna):
    response = client_for(ada).get("/admin/partners/partner/")
    content = response.content.decode()
    assert "Partner A" in content
    assert "Active" in content
    assert '<td class="field-member_count">2</td>' in content


@pytest.mark.django_db
def test_it_suspends_partners_from_the_list_audited(client_for, ada, partner_a):
    response = client_for(ada).post(
        "/admin/partners/partner/",
        {"action": "suspend", "_selected_action": [partner_a.pk]},
    )
    assert response.status_code == 302
    partner_a.refresh_from_db()
    assert partner_a.status == "suspended"
    event = AuditEvent.objects.get(action="partner.suspend")
    assert event.actor == ada


@pytest.mark.django_db
def test_it_extends_accreditation_after_asking_the_date(client_for, ada, partner_a):
    client = client_for(ada)
    response = client.post(
        "/admin/partners/partner/",
        {"action": "extend_accreditation", "_selected_action": [partner_a.pk]},
    )
    assert response.status_code == 200
    assert "Accredited until" in response.content.decode()
    response = client.post(
        "/admin/partners/partner/",
        {
            "action": "extend_accreditation",
            "_selected_action": [partner_a.pk],
            "apply": "1",
            "until": "2031-05-01",
        },
    )
    assert response.status_code == 302
    partner_a.refresh_from_db()
    assert str(partner_a.accredited_until) == "2031-05-01"
    assert AuditEvent.objects.filter(action="partner.extend_accreditation").exists()


@pytest.mark.django_db
def test_it_invites_a_member_by_email(
    client_for, ada, partner_a, mailoutbox, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(ada).post(
            "/admin/partners/user/add/",
            {
                "email": "New@Example.com",
                "name": "New Person",
                "partner": partner_a.pk,
                "role": "lead",
            },
        )
    assert response.status_code == 302
    user = User.objects.get(email="new@example.com")
    assert not user.has_usable_password()
    assert Membership.objects.get(user=user).role == "lead"
    assert len(mailoutbox) == 1
    assert "/accounts/set-password/" in mailoutbox[0].body


@pytest.mark.django_db
def test_it_refuses_to_invite_an_existing_email(client_for, ada, alice):
    response = client_for(ada).post(
        "/admin/partners/user/add/",
        {"email": "ALICE@example.com", "name": "Again", "role": "checker"},
    )
    assert response.status_code == 200
    assert "already has an account" in response.content.decode()


@pytest.mark.django_db
def test_it_deactivates_a_member_from_the_list(client_for, ada, alice):
    client_for(ada).post(
        "/admin/partners/user/", {"action": "deactivate", "_selected_action": [alice.pk]}
    )
    alice.refresh_from_db()
    assert not alice.is_active
    assert AuditEvent.objects.filter(action="user.deactivate", object_id=str(alice.pk)).exists()


@pytest.mark.django_db
def test_it_shows_a_new_token_once_and_stores_its_hash(client_for, ada):
    client = client_for(ada)
    response = client.post(
        "/admin/partners/apiclient/add/", {"name": "ranker", "scopes": ["demotions:read"]}
    )
    assert response.status_code == 200
    content = response.content.decode()
    token = content.split('id="new-token" type="text" readonly size="60" value="')[1].split('"')[0]
    api_client = ApiClient.objects.get(name="ranker")
    assert api_client.token_hash == hashlib.sha256(token.encode()).hexdigest()
    # The change page never shows it again.
    page = client.get(f"/admin/partners/apiclient/{api_client.pk}/change/").content.decode()
    assert token not in page


@pytest.mark.django_db
def test_it_revokes_tokens_from_the_list(client_for, ada):
    client = client_for(ada)
    client.post("/admin/partners/apiclient/add/", {"name": "ranker", "scopes": ["ingest"]})
    api_client = ApiClient.objects.get(name="ranker")
    client.post(
        "/admin/partners/apiclient/", {"action": "revoke", "_selected_action": [api_client.pk]}
    )
    api_client.refresh_from_db()
    assert api_client.revoked_at is not None


@pytest.mark.django_db
def test_it_keeps_the_audit_log_read_only(client_for, ada, partner_a):
    from factcheck.core.services import audit_record

    event = audit_record(actor=ada, action="partner.suspend", obj=partner_a)
    client = client_for(ada)
    assert client.get("/admin/core/auditevent/").status_code == 200
    assert client.get("/admin/core/auditevent/add/").status_code == 403
    assert (
        client.post(f"/admin/core/auditevent/{event.pk}/delete/", {"post": "yes"}).status_code
        == 403
    )
    assert AuditEvent.objects.filter(pk=event.pk).exists()


@pytest.mark.django_db
def test_it_opens_every_admin_list_and_add_page(client_for, ada):
    from django.contrib import admin
    from django.urls import reverse

    client = client_for(ada)
    for model, model_admin in admin.site._registry.items():
        prefix = f"admin:{model._meta.app_label}_{model._meta.model_name}"
        response = client.get(reverse(f"{prefix}_changelist"))
        assert response.status_code == 200, model
        if model_admin.has_add_permission(response.wsgi_request):
            assert client.get(reverse(f"{prefix}_add")).status_code == 200, model
