from django.apps import AppConfig


class DemotionConfig(AppConfig):
    name = "factcheck.demotion"
    label = "demotion"
