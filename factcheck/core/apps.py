from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "factcheck.core"
    label = "core"
