"""Serializers every API module shares: the error shapes of DESIGN §8 and a post's author."""

from rest_framework import serializers


class ErrorSerializer(serializers.Serializer):
    """Every API error: ``{"detail": "…"}``."""

    detail = serializers.CharField()


class FieldErrorsSerializer(serializers.Serializer):
    """A single object's validation errors: ``{"detail": "…", "fields": {name: [messages]}}``."""

    detail = serializers.CharField()
    fields = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()), required=False
    )


class PostAuthorSerializer(serializers.Serializer):
    id = serializers.CharField(source="author_external_id")
    name = serializers.CharField(source="author_name")
