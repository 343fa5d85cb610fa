"""The ranker's API (DESIGN §5.5, §8) and the ClaimReview export of ratings (§6)."""

import json

from django.http import HttpResponse
from django.urls import path
from drf_spectacular.utils import OpenApiExample, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.parsers import JSONParser
from rest_framework.views import APIView

from factcheck.api.common import ErrorSerializer, FieldErrorsSerializer
from factcheck.core.api import ApiError
from factcheck.demotion import selectors
from factcheck.partners.auth import HasScope
from factcheck.ratings.claimreview import claimreview_for
from factcheck.ratings.selectors import rating_published

POST_ID_MAX_CHARS = 128


class DemotionValuesSerializer(serializers.Serializer):
    multiplier = serializers.FloatField(
        help_text="Multiply the post's ranking score by this: post × author multiplier, 0 if "
        "removed."
    )
    label = serializers.CharField(
        help_text='The verdict to show as a label ("false", "partly_false", …), or "".'
    )
    removed = serializers.BooleanField()


class DemotionLookupSerializer(serializers.Serializer):
    post_ids = serializers.ListField(
        child=serializers.CharField(max_length=POST_ID_MAX_CHARS),
        max_length=selectors.LOOKUP_MAX_IDS,
        help_text="Up to 10,000 platform post ids.",
    )


class DemotionLookupResultSerializer(serializers.Serializer):
    demotions = serializers.DictField(
        child=DemotionValuesSerializer(),
        help_text="Keyed by post id; only posts that are demoted, labelled or removed. An id "
        "that is absent means multiplier 1.0, no label, not removed.",
    )


class DemotionChangesQuerySerializer(serializers.Serializer):
    after = serializers.IntegerField(
        min_value=0,
        max_value=2**63 - 1,
        default=0,
        help_text="The last seq you have applied (0 to start).",
    )
    limit = serializers.IntegerField(
        min_value=1,
        max_value=selectors.CHANGES_MAX_LIMIT,
        default=selectors.CHANGES_DEFAULT_LIMIT,
        help_text="At most 10,000; 1,000 when omitted.",
    )


class DemotionChangeSerializer(DemotionValuesSerializer):
    seq = serializers.IntegerField()
    post_id = serializers.CharField()
    at = serializers.DateTimeField()


class DemotionChangesSerializer(serializers.Serializer):
    changes = DemotionChangeSerializer(many=True)
    next = serializers.IntegerField(
        help_text="Pass as `after` next time: the last seq returned, or `after` when none."
    )


def _json(body: dict) -> HttpResponse:
    return HttpResponse(json.dumps(body, separators=(",", ":")), content_type="application/json")


def _post_ids(data) -> list[str]:
    """The request's ids as strings, parsed by hand: a serializer field per id costs more than
    the query at 10,000 ids."""
    if not isinstance(data, dict) or "post_ids" not in data:
        raise ValidationError({"post_ids": ["This field is required."]})
    ids = data["post_ids"]
    if not isinstance(ids, list):
        raise ValidationError({"post_ids": ["Expected a list of post ids."]})
    if len(ids) > selectors.LOOKUP_MAX_IDS:
        raise ApiError(
            413,
            f"At most {selectors.LOOKUP_MAX_IDS:,} post ids per lookup; this request has "
            f"{len(ids):,}. Split it.",
        )
    result = []
    for index, value in enumerate(ids):
        if isinstance(value, str) and 0 < len(value) <= POST_ID_MAX_CHARS:
            result.append(value)
        elif isinstance(value, int) and not isinstance(value, bool):
            result.append(str(value))
        else:
            raise ValidationError(
                {
                    "post_ids": [
                        f"Item {index} is not a post id: give strings of 1 to "
                        f"{POST_ID_MAX_CHARS} characters (or integers)."
                    ]
                }
            )
    return result


class DemotionLookupView(APIView):
    permission_classes = [HasScope.of("demotions:read")]
    parser_classes = [JSONParser]

    @extend_schema(
        operation_id="demotions_lookup",
        summary="Demotions of up to 10,000 posts",
        tags=["ranker"],
        request=DemotionLookupSerializer,
        responses={
            200: DemotionLookupResultSerializer,
            400: FieldErrorsSerializer,
            401: ErrorSerializer,
            403: ErrorSerializer,
            413: ErrorSerializer,
        },
        examples=[
            OpenApiExample(
                "Lookup",
                request_only=True,
                value={"post_ids": ["1790001", "1790002", "1790003"]},
            ),
            OpenApiExample(
                "Answer",
                response_only=True,
                value={
                    "demotions": {
                        "1790001": {"multiplier": 0.2, "label": "false", "removed": False},
                        "1790003": {"multiplier": 0.0, "label": "", "removed": True},
                    }
                },
            ),
        ],
    )
    def post(self, request):
        rows = selectors.demotions_lookup(external_ids=_post_ids(request.data))
        demotions = {
            external_id: {"multiplier": multiplier, "label": label, "removed": removed}
            for external_id, multiplier, label, removed in rows
        }
        return _json({"demotions": demotions})


class DemotionChangesView(APIView):
    permission_classes = [HasScope.of("demotions:read")]

    @extend_schema(
        operation_id="demotions_changes",
        summary="The demotion change feed, in sequence order",
        description="Replaying every change from `after=0`, keeping the latest values per "
        "post and dropping posts whose values are multiplier 1.0, no label, not removed, "
        "rebuilds exactly what the lookup answers. Sequence numbers increase in commit order, "
        "so polling with `after=<next>` never skips a change.",
        tags=["ranker"],
        parameters=[DemotionChangesQuerySerializer],
        responses={
            200: DemotionChangesSerializer,
            400: FieldErrorsSerializer,
            401: ErrorSerializer,
            403: ErrorSerializer,
        },
    )
    def get(self, request):
        query = DemotionChangesQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        after, limit = query.validated_data["after"], query.validated_data["limit"]
        rows = selectors.demotion_changes(after=after, limit=limit)
        changes = [
            {
                "seq": seq,
                "post_id": external_id,
                "multiplier": multiplier,
                "label": label,
                "removed": removed,
                "at": at.isoformat(),
            }
            for seq, external_id, multiplier, label, removed, at in rows
        ]
        return _json({"changes": changes, "next": rows[-1][0] if rows else after})


ClaimReviewSerializer = inline_serializer(
    name="ClaimReview",
    fields={
        "@context": serializers.CharField(default="https://schema.org"),
        "@type": serializers.CharField(default="ClaimReview"),
        "datePublished": serializers.DateField(),
        "headline": serializers.CharField(),
        "claimReviewed": serializers.CharField(help_text="An excerpt of the post's text."),
        "reviewBody": serializers.CharField(required=False),
        "url": serializers.URLField(required=False, help_text="The fact-check article."),
        "inLanguage": serializers.CharField(required=False),
        "itemReviewed": inline_serializer(
            name="ClaimReviewClaim",
            fields={
                "@type": serializers.CharField(default="Claim"),
                "author": inline_serializer(
                    name="ClaimReviewPerson",
                    fields={
                        "@type": serializers.CharField(default="Person"),
                        "name": serializers.CharField(),
                    },
                ),
                "appearance": inline_serializer(
                    name="ClaimReviewAppearance",
                    fields={
                        "@type": serializers.CharField(default="CreativeWork"),
                        "url": serializers.URLField(),
                        "datePublished": serializers.DateTimeField(required=False),
                    },
                ),
            },
        ),
        "author": inline_serializer(
            name="ClaimReviewOrganization",
            fields={
                "@type": serializers.CharField(default="Organization"),
                "name": serializers.CharField(help_text="The fact-checking partner."),
            },
        ),
        "reviewRating": inline_serializer(
            name="ClaimReviewRating",
            fields={
                "@type": serializers.CharField(default="Rating"),
                "ratingValue": serializers.IntegerField(min_value=1, max_value=5),
                "bestRating": serializers.IntegerField(default=5),
                "worstRating": serializers.IntegerField(default=1),
                "alternateName": serializers.CharField(help_text='The verdict, e.g. "False".'),
            },
        ),
    },
)


class RatingClaimReviewView(APIView):
    """Any signed-in user or API token may read it: a rating other than "not eligible" is a
    published finding, meant to be shared."""

    @extend_schema(
        operation_id="ratings_claimreview",
        summary="A rating as schema.org ClaimReview JSON-LD",
        tags=["ratings"],
        responses={
            (200, "application/ld+json"): ClaimReviewSerializer,
            401: ErrorSerializer,
            404: ErrorSerializer,
        },
    )
    def get(self, request, rating_id: int):
        rating = rating_published(rating_id=rating_id)
        if rating is None:
            raise NotFound("No published rating with this id.")
        body = json.dumps(claimreview_for(rating), separators=(",", ":"))
        # Publishers paste JSON-LD into <script> tags: escape what could close the tag, as
        # Django's json_script does. Same JSON once parsed.
        for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
            body = body.replace(char, escaped)
        return HttpResponse(body, content_type="application/ld+json")


urlpatterns = [
    path("demotions/lookup", DemotionLookupView.as_view(), name="demotion-lookup"),
    path("demotions/changes", DemotionChangesView.as_view(), name="demotion-changes"),
    path(
        "ratings/<int:rating_id>/claimreview",
        RatingClaimReviewView.as_view(),
        name="rating-claimreview",
    ),
]
