import hashlib

import pytest
from django.core.management import call_command
from rest_framework.test import APIRequestFactory

from factcheck.core.models import AuditEvent
from factcheck.partners.auth import BearerTokenAuthentication, HasScope, ServiceUser
from factcheck.partners.models import ApiClient
from factcheck.partners.services import api_client_create, api_client_revoke


@pytest.mark.django_db
def test_it_stores_only_the_sha256_of_the_token(ada):
    client, token = api_client_create(name="platform", scopes=["ingest"], actor=ada)
    assert token.startswith("fc_")
    assert client.token_hash == hashlib.sha256(token.encode()).hexdigest()
    assert token not in str(ApiClient.objects.filter(pk=client.pk).values().get())
    assert AuditEvent.objects.filter(action="api_client.create").count() == 1


def _authenticate(token):
    request = APIRequestFactory().get("/", HTTP_AUTHORIZATION=f"Bearer {token}")
    return BearerTokenAuthentication().authenticate(request)


@pytest.mark.django_db
def test_it_authenticates_a_service_token_and_records_last_use(ada):
    client, token = api_client_create(name="platform", scopes=["ingest"], actor=ada)
    user, auth = _authenticate(token)
    assert isinstance(user, ServiceUser)
    assert auth == client
    client.refresh_from_db()
    assert client.last_used_at is not None


@pytest.mark.django_db
def test_it_refuses_a_revoked_or_unknown_token(ada):
    from rest_framework.exceptions import AuthenticationFailed

    client, token = api_client_create(name="platform", scopes=["ingest"], actor=ada)
    api_client_revoke(client=client, actor=ada)
    with pytest.raises(AuthenticationFailed):
        _authenticate(token)
    with pytest.raises(AuthenticationFailed):
        _authenticate("fc_not-a-token")
    assert AuditEvent.objects.filter(action="api_client.revoke").count() == 1


@pytest.mark.django_db
def test_it_acts_as_the_user_with_a_personal_token(ada, alice):
    _, token = api_client_create(name="alice tool", scopes=["checker"], user=alice, actor=ada)
    user, _ = _authenticate(token)
    assert user == alice


@pytest.mark.django_db
def test_it_checks_scopes(ada):
    client, _ = api_client_create(name="ranker", scopes=["demotions:read"], actor=ada)
    request = APIRequestFactory().get("/")
    request.auth = client
    assert HasScope.of("demotions:read")().has_permission(request, None)
    assert not HasScope.of("ingest")().has_permission(request, None)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("scopes", "with_user", "message"),
    [
        (["bogus"], False, "Unknown scope"),
        ([], False, "at least one scope"),
        (["checker"], False, "needs the user"),
        (["checker", "ingest"], True, "carries no service scopes"),
        (["ingest"], True, "Only personal tokens"),
    ],
)
def test_it_refuses_inconsistent_scopes(ada, alice, scopes, with_user, message):
    with pytest.raises(ValueError, match=message):
        api_client_create(name="x", scopes=scopes, user=alice if with_user else None, actor=ada)
    assert not ApiClient.objects.exists()


@pytest.mark.django_db
def test_it_prints_a_new_token_once_from_the_command(capsys, alice):
    call_command("create_api_client", "platform", "--scopes", "ingest,demotions:read")
    out, err = capsys.readouterr()
    token = out.strip()
    client = ApiClient.objects.get(name="platform")
    assert client.scopes == ["ingest", "demotions:read"]
    assert client.token_hash == hashlib.sha256(token.encode()).hexdigest()
    assert "shown once" in err

    call_command("create_api_client", "alice tool", "--user", alice.email, "--scopes", "checker")
    assert ApiClient.objects.get(name="alice tool").user == alice


@pytest.mark.django_db
def test_it_explains_a_bad_command_line():
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="No user"):
        call_command("create_api_client", "x", "--user", "ghost@example.com", "--scopes", "checker")
