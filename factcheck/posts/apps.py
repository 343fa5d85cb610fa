from django.apps import AppConfig


class PostsConfig(AppConfig):
    name = "factcheck.posts"
    label = "posts"
