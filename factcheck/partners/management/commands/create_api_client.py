from django.core.management.base import BaseCommand, CommandError

from factcheck.partners import services
from factcheck.partners.models import User


class Command(BaseCommand):
    help = (
        "Create an API token and print it once. "
        "Service token: NAME --scopes ingest,demotions:read. "
        "Personal token: NAME --user EMAIL --scopes checker."
    )

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--scopes", required=True, help="Comma-separated scopes.")
        parser.add_argument("--user", help="Email of the user a personal (checker) token acts as.")

    def handle(self, *args, name, scopes, user=None, **options):
        scope_list = [scope.strip() for scope in scopes.split(",") if scope.strip()]
        owner = None
        if user:
            owner = User.objects.filter(email__iexact=user).first()
            if owner is None:
                raise CommandError(f"No user with email {user}.")
        try:
            client, token = services.api_client_create(
                name=name, scopes=scope_list, user=owner, actor="system:create_api_client"
            )
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        self.stderr.write(
            f"Created API client {client.name!r} with scopes {', '.join(client.scopes)}. "
            "The token is shown once; store it now."
        )
        self.stdout.write(token)
