"""POST /api/v1/posts/ingest: the platform pushes trending posts (issue 3, DESIGN §5.1, §8)."""

import json

from django.core.exceptions import RequestDataTooBig
from django.urls import path
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import JSONParser
from rest_framework.response import Response
from rest_framework.views import APIView

from factcheck.api.common import ErrorSerializer
from factcheck.partners.auth import BearerTokenAuthentication, HasScope, request_actor
from factcheck.posts.services import (
    INGEST_MAX_BYTES,
    INGEST_MAX_POSTS,
    IngestRejected,
    IngestTooLarge,
    posts_ingest,
)
from factcheck.posts.validation import ID_PATTERN, ID_RULE

# The serializers below document the shapes for OpenAPI only. Items are validated by
# factcheck.posts.validation in plain Python, which is several times faster than a serializer
# per item (see that module).


class IngestAuthorSerializer(serializers.Serializer):
    id = serializers.RegexField(
        f"^{ID_PATTERN.pattern}$", help_text=f"The platform's author id: {ID_RULE}."
    )
    name = serializers.CharField(max_length=300, required=False, allow_blank=True)


class IngestMetricsSerializer(serializers.Serializer):
    observed_at = serializers.DateTimeField(
        help_text="When the counts were taken: ISO 8601 with a time zone, not in the future "
        "(beyond FACTCHECK_CLOCK_SKEW_SECONDS, default 300). The same post and observed_at sent "
        "again adds nothing."
    )
    shares = serializers.IntegerField(min_value=0)
    views = serializers.IntegerField(min_value=0)
    comments = serializers.IntegerField(min_value=0, required=False, default=0)
    reactions = serializers.IntegerField(min_value=0, required=False, default=0)
    reports_hate = serializers.IntegerField(min_value=0, required=False, default=0)
    reports_violence = serializers.IntegerField(min_value=0, required=False, default=0)


class IngestPostSerializer(serializers.Serializer):
    id = serializers.RegexField(
        f"^{ID_PATTERN.pattern}$",
        help_text=f"The platform's post id, {ID_RULE}. Every API URL names a post by it.",
    )
    author = IngestAuthorSerializer()
    url = serializers.URLField(
        max_length=2000, required=False, allow_blank=True, help_text="http(s) only."
    )
    text = serializers.CharField(allow_blank=True, help_text="No NUL bytes.")
    language = serializers.CharField(
        max_length=35, help_text="ISO 639-1, optionally with a region: 'en', 'pt-BR'."
    )
    country = serializers.CharField(
        max_length=2, required=False, allow_blank=True, help_text="ISO 3166-1 alpha-2: 'US'."
    )
    published_at = serializers.DateTimeField(help_text="ISO 8601 with a time zone.")
    metrics = IngestMetricsSerializer(
        help_text="One engagement snapshot. Counts never go backwards: each must be at least "
        "the count of the post's previous snapshot."
    )


class IngestBatchSerializer(serializers.Serializer):
    posts = serializers.ListField(
        child=IngestPostSerializer(),
        max_length=INGEST_MAX_POSTS,
        help_text=f"Up to {INGEST_MAX_POSTS:,} posts. Unknown fields are ignored. An id may "
        "appear more than once with different observed_at (several snapshots).",
    )


class IngestResultSerializer(serializers.Serializer):
    created = serializers.IntegerField(help_text="Posts that were new.")
    updated = serializers.IntegerField(
        help_text="Posts that got a new snapshot or changed content."
    )
    unchanged = serializers.IntegerField(
        help_text="Posts with the same content whose snapshot was already stored."
    )


class IngestItemErrorSerializer(serializers.Serializer):
    index = serializers.IntegerField(help_text="Position of the post in `posts`.")
    field = serializers.CharField(
        help_text="Dotted path in the post, e.g. `metrics.shares`; empty for the whole item."
    )
    message = serializers.CharField()


class IngestBatchErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()
    errors = IngestItemErrorSerializer(many=True, required=False)
    fields = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        required=False,
        help_text='When the body is not an object with a "posts" list.',
    )


def _bad_shape(message: str) -> Response:
    return Response(
        {"detail": message, "fields": {"posts": [message]}}, status=status.HTTP_400_BAD_REQUEST
    )


def _too_large(message: str) -> Response:
    return Response({"detail": message}, status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)


TOO_LARGE = "The body is larger than the 10 MiB limit: send smaller batches."


def _reject_constant(name: str):
    raise ValueError(f"{name} is not a JSON value")


def _json_problem(exc: Exception) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at line {exc.lineno}, column {exc.colno}"
    if isinstance(exc, UnicodeDecodeError):
        return "it is not UTF-8 text"
    if isinstance(exc, RecursionError):
        return "it is nested too deeply"
    return str(exc)


class PostIngestView(APIView):
    authentication_classes = [BearerTokenAuthentication]
    permission_classes = [HasScope.of("ingest")]
    parser_classes = [JSONParser]

    @extend_schema(
        operation_id="posts_ingest",
        summary="Push a batch of trending posts",
        description=(
            "Upserts up to 1,000 posts by their platform id, each with one engagement snapshot, "
            "and recomputes their trending score. Atomic: if any post is invalid, nothing is "
            "written and the 400 lists every error by index and field. Idempotent: the same "
            "batch again answers all unchanged and adds nothing. A new post is queued for "
            "fact-checking; an existing post keeps its status. Needs a token with scope "
            "`ingest`. Bodies over 10 MiB or with more than 1,000 posts get 413."
        ),
        tags=["ingest"],
        request=IngestBatchSerializer,
        responses={
            200: IngestResultSerializer,
            400: OpenApiResponse(
                IngestBatchErrorSerializer,
                description="Not JSON, not the right shape, or invalid posts (nothing written).",
                examples=[
                    OpenApiExample(
                        "Invalid posts",
                        value={
                            "detail": "2 errors in 1 post; nothing was written.",
                            "errors": [
                                {
                                    "index": 3,
                                    "field": "metrics.shares",
                                    "message": "Must not be negative.",
                                },
                                {
                                    "index": 3,
                                    "field": "language",
                                    "message": "Unknown language code 'xx': use an ISO 639-1 "
                                    "code, optionally with a region, e.g. 'en' or 'pt-BR'.",
                                },
                            ],
                        },
                    )
                ],
            ),
            401: OpenApiResponse(ErrorSerializer, description="No token, or a bad one."),
            403: OpenApiResponse(ErrorSerializer, description="The token lacks scope ingest."),
            413: OpenApiResponse(
                ErrorSerializer, description="More than 1,000 posts or a body over 10 MiB."
            ),
        },
    )
    def post(self, request):
        declared = request.META.get("CONTENT_LENGTH") or "0"
        if declared.isdigit() and int(declared) > INGEST_MAX_BYTES:
            return _too_large(TOO_LARGE)
        try:
            body = request.body
        except RequestDataTooBig:
            return _too_large(TOO_LARGE)
        if len(body) > INGEST_MAX_BYTES:
            return _too_large(TOO_LARGE)
        try:
            data = json.loads(body, parse_constant=_reject_constant)
        except (ValueError, RecursionError) as exc:
            return Response(
                {"detail": f"The body is not valid JSON ({_json_problem(exc)})."},
                status=status.HTTP_400_BAD_REQUEST,
            )
        if not isinstance(data, dict):
            return _bad_shape('The body must be a JSON object with a "posts" list.')
        posts = data.get("posts")
        if not isinstance(posts, list):
            return _bad_shape('The body must have "posts": a list of posts.')
        try:
            result = posts_ingest(posts=posts, actor=request_actor(request))
        except IngestTooLarge as exc:
            return _too_large(f"{exc} Split it into smaller batches.")
        except IngestRejected as exc:
            return Response(
                {"detail": str(exc), "errors": [error.as_dict() for error in exc.errors]},
                status=status.HTTP_400_BAD_REQUEST,
            )
        return Response(
            {"created": result.created, "updated": result.updated, "unchanged": result.unchanged}
        )


urlpatterns = [
    path("posts/ingest", PostIngestView.as_view(), name="posts-ingest"),
]
