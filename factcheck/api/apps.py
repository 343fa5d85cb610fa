from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "factcheck.api"
    label = "api"

    def ready(self):
        from factcheck.api import schema  # noqa: F401  registers the bearer scheme
