from django.apps import AppConfig


class ModerationConfig(AppConfig):
    name = "factcheck.moderation"
    label = "moderation"
