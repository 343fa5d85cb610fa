"""Bearer tokens for the API (DESIGN §2, §8)."""

from datetime import timedelta

from django.contrib.auth.models import AnonymousUser
from django.utils import timezone
from rest_framework import authentication, exceptions, permissions

from factcheck.partners.models import ApiClient

# last_used_at is written at most this often per token, so a busy client costs no write per call.
LAST_USED_RESOLUTION = timedelta(minutes=1)


class BearerTokenAuthentication(authentication.BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).decode("latin-1")
        if not header:
            return None
        keyword, _, token = header.partition(" ")
        if keyword != self.keyword:
            return None
        token = token.strip()
        if not token:
            raise exceptions.AuthenticationFailed("The bearer token is missing.")
        client = (
            ApiClient.objects.select_related("user")
            .filter(token_hash=ApiClient.hash_token(token), revoked_at__isnull=True)
            .first()
        )
        if client is None:
            raise exceptions.AuthenticationFailed("The token is not valid or has been revoked.")
        now = timezone.now()
        if client.last_used_at is None or client.last_used_at < now - LAST_USED_RESOLUTION:
            ApiClient.objects.filter(pk=client.pk).update(last_used_at=now)
        if ApiClient.Scope.CHECKER in client.scopes and client.user is not None:
            if not client.user.is_active:
                raise exceptions.AuthenticationFailed("The token's user is deactivated.")
            return (client.user, client)
        return (ServiceUser(client), client)

    def authenticate_header(self, request):
        return 'Bearer realm="api"'


class ServiceUser(AnonymousUser):
    """The request.user of a service token: authenticated, but no person."""

    def __init__(self, client: ApiClient):
        self.client = client

    @property
    def is_authenticated(self):
        return True

    def __str__(self):
        return f"api:{self.client.name}"


def request_actor(request):
    """The actor to record in audit events: the user, or "api:<client>" for a service token."""
    if isinstance(request.user, ServiceUser):
        return str(request.user)
    return request.user


class HasScope(permissions.BasePermission):
    """``permission_classes = [HasScope.of("ingest")]``: a token holding the scope."""

    scope = ""
    message = "The token lacks the scope this endpoint needs."

    @classmethod
    def of(cls, scope: str):
        return type(f"HasScope_{scope}", (cls,), {"scope": scope})

    def has_permission(self, request, view):
        client = request.auth
        if not isinstance(client, ApiClient):
            return False
        self.message = f"The token lacks the '{self.scope}' scope."
        return self.scope in client.scopes


class IsCheckerUser(permissions.BasePermission):
    """A person acting for themselves: a browser session or a personal token (scope checker)."""

    message = "This endpoint needs a signed-in user or a personal token (scope 'checker')."

    def has_permission(self, request, view):
        if isinstance(request.user, ServiceUser) or not request.user.is_authenticated:
            return False
        client = request.auth
        if isinstance(client, ApiClient):
            return ApiClient.Scope.CHECKER in client.scopes
        return True


def axes_username(request, credentials=None) -> str:
    """django-axes: the email a login attempt is for, case-insensitive."""
    source = credentials if credentials else getattr(request, "POST", {})
    return (source.get("username") or source.get("email") or "").strip().lower()
