from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "factcheck.ratings"
    label = "ratings"
