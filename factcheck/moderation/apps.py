from django.apps import AppConfig
from django.conf import settings
from django.core import checks


def webhook_settings_check(app_configs, **kwargs):
    if settings.FACTCHECK_WEBHOOK_URLS and not settings.FACTCHECK_WEBHOOK_SECRET:
        return [
            checks.Warning(
                "FACTCHECK_WEBHOOK_URLS is set but FACTCHECK_WEBHOOK_SECRET is empty, so "
                "moderation webhooks cannot be signed and are not sent.",
                hint="Set FACTCHECK_WEBHOOK_SECRET to the secret the receivers verify with.",
                id="moderation.W001",
            )
        ]
    return []


class ModerationConfig(AppConfig):
    name = "factcheck.moderation"
    label = "moderation"

    def ready(self):
        from factcheck.moderation import receivers
        from factcheck.posts.signals import posts_ingested
        from factcheck.ratings.signals import rating_created

        posts_ingested.connect(
            receivers.screen_ingested_posts, dispatch_uid="moderation.screen_ingested_posts"
        )
        rating_created.connect(
            receivers.escalate_flagged_rating, dispatch_uid="moderation.escalate_flagged_rating"
        )
        checks.register(webhook_settings_check)
