from django.apps import AppConfig


class ReviewConfig(AppConfig):
    name = "factcheck.review"
    label = "review"
