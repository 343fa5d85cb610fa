from django.apps import AppConfig


class PartnersConfig(AppConfig):
    name = "factcheck.partners"
    label = "partners"
