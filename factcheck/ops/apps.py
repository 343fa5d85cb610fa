from django.apps import AppConfig


class OpsConfig(AppConfig):
    name = "factcheck.ops"
    label = "ops"
