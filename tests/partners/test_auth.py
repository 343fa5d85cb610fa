import pytest
from django.test import override_settings

from factcheck.core.models import AuditEvent
from tests.conftest import PASSWORD


@pytest.mark.django_db
def test_it_logs_in_with_email_and_password(client, alice):
    response = client.post(
        "/accounts/login/", {"username": "alice@example.com", "password": PASSWORD}
    )
    assert response.status_code == 302
    assert client.session["_auth_user_id"] == str(alice.pk)


@pytest.mark.django_db
def test_it_shows_a_clear_error_on_a_wrong_password(client, alice):
    response = client.post(
        "/accounts/login/", {"username": "alice@example.com", "password": "nope"}
    )
    assert response.status_code == 200
    assert "Please enter a correct email and password" in response.content.decode()
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
@override_settings(AXES_FAILURE_LIMIT=3)
def test_it_locks_the_account_after_repeated_failures(client, alice):
    for _ in range(3):
        client.post("/accounts/login/", {"username": "alice@example.com", "password": "wrong"})
    # Even the right password is refused while locked, with a page that says why.
    response = client.post(
        "/accounts/login/", {"username": "alice@example.com", "password": PASSWORD}
    )
    assert response.status_code == 429
    assert "Too many failed logins" in response.content.decode()
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_it_logs_out_with_a_post(client_for, alice):
    client = client_for(alice)
    response = client.post("/accounts/logout/")
    assert response.status_code == 302
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_it_uses_password_validators(alice):
    from django.contrib.auth.password_validation import validate_password
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError):
        validate_password("password", alice)


@pytest.mark.django_db
def test_it_sends_an_invite_with_a_working_set_password_link(client, ada, partner_a, mailoutbox):
    from factcheck.partners.services import user_invite

    user = user_invite(
        email="new@example.com", name="Newbie", partner=partner_a, actor=ada, moderator=False
    )
    # on_commit does not fire inside the test transaction: send as the commit would.
    from factcheck.partners.services import user_send_invite

    user_send_invite(user=user)
    assert len(mailoutbox) == 1
    body = mailoutbox[0].body
    link = next(line for line in body.splitlines() if "/accounts/set-password/" in line).strip()
    path = link.split("://", 1)[1].split("/", 1)[1]
    response = client.get("/" + path, follow=True)
    assert response.status_code == 200
    response = client.post(
        response.redirect_chain[-1][0],
        {"new_password1": "a sturdy passphrase 42", "new_password2": "a sturdy passphrase 42"},
    )
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.check_password("a sturdy passphrase 42")
    assert user.memberships.get().partner == partner_a
    assert AuditEvent.objects.filter(action="user.invite", object_id=str(user.pk)).exists()
