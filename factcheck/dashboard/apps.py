from django.apps import AppConfig


class DashboardConfig(AppConfig):
    name = "factcheck.dashboard"
    label = "dashboard"
