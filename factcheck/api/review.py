"""The partner API of the review queue (DESIGN §5.2, §8): the same services and rules as the
browser, for partners working from their own tools with personal tokens (scope ``checker``)
or a browser session."""

from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import path
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.views import APIView

from factcheck.api.common import ErrorSerializer, FieldErrorsSerializer, PostAuthorSerializer
from factcheck.core.api import ApiError
from factcheck.partners.access import membership_for
from factcheck.partners.auth import IsCheckerUser
from factcheck.ratings.models import Verdict
from factcheck.review import converters, selectors, services  # noqa: F401 (registers post ids)
from factcheck.review.models import Claim, Skip

# --- serializers ------------------------------------------------------------------------------


class QueuePostSerializer(serializers.Serializer):
    """A post as the queue and the claim answer show it (DESIGN §8)."""

    id = serializers.CharField(source="external_id")
    text = serializers.CharField()
    url = serializers.CharField()
    author = PostAuthorSerializer(source="*")
    language = serializers.SerializerMethodField()
    country = serializers.CharField()
    published_at = serializers.DateTimeField()
    shares = serializers.IntegerField()
    views = serializers.IntegerField()
    trending_score = serializers.FloatField()

    @extend_schema_field(serializers.CharField(help_text="ISO 639-1, with a region if given."))
    def get_language(self, post) -> str:
        return post.language_tag or post.language


class QueuePageSerializer(serializers.Serializer):
    count = serializers.IntegerField(help_text="Posts waiting in the queue.")
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = QueuePostSerializer(many=True)


class ClaimLeaseSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    expires_at = serializers.DateTimeField()


class ClaimedSerializer(serializers.Serializer):
    claim = ClaimLeaseSerializer()
    post = QueuePostSerializer()


class ClaimStateSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    post_id = serializers.CharField(source="post.external_id")
    state = serializers.ChoiceField(choices=Claim.State.choices)
    expires_at = serializers.DateTimeField()
    ended_at = serializers.DateTimeField(allow_null=True)


class SkipInputSerializer(serializers.Serializer):
    reason = serializers.ChoiceField(choices=Skip.Reason.choices)
    note = serializers.CharField(required=False, allow_blank=True, max_length=2000, default="")


class RatingInputSerializer(serializers.Serializer):
    """DESIGN §8. The rules beyond types (an article URL for most verdicts, http(s) only, the
    target group of an attack) are the ratings service's, answered as 400 ``fields``."""

    verdict = serializers.ChoiceField(choices=Verdict.choices)
    headline = serializers.CharField(help_text="At most 200 characters.")
    summary = serializers.CharField(required=False, allow_blank=True, default="")
    article_url = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        help_text="http(s); required unless the verdict is true, satire or not_eligible.",
    )
    sources = serializers.ListField(
        child=serializers.CharField(), required=False, default=list, help_text="http(s) URLs."
    )
    advocates_violence = serializers.BooleanField(required=False, default=False)
    attacks_protected_group = serializers.BooleanField(required=False, default=False)
    target_group = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        help_text="Required when attacks_protected_group is true.",
    )


class RatingCreatedSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    post_id = serializers.CharField(source="post.external_id")
    verdict = serializers.ChoiceField(choices=Verdict.choices)
    version = serializers.IntegerField()
    created_at = serializers.DateTimeField()


class QueuePagination(PageNumberPagination):
    page_size = selectors.QUEUE_PAGE_SIZE
    page_size_query_param = "page_size"
    max_page_size = 200


# --- views ------------------------------------------------------------------------------------

_COMMON = {
    401: OpenApiResponse(ErrorSerializer, description="No or bad credentials."),
    403: OpenApiResponse(
        ErrorSerializer,
        description="Not a checker of a partner, or the partner is suspended or unaccredited.",
    ),
}


def _membership(request):
    membership = membership_for(request.user)
    if membership is None:
        raise PermissionDenied("Only fact-checkers of a partner can do this.")
    return membership


class QueueView(APIView):
    permission_classes = [IsCheckerUser]

    @extend_schema(
        operation_id="queue_list",
        summary="The queue: queued posts in the partner's languages, most trending first",
        tags=["review"],
        parameters=[
            OpenApiParameter("page", int, description="Page number, from 1."),
            OpenApiParameter("page_size", int, description="Posts per page (at most 200)."),
        ],
        responses={200: QueuePageSerializer, **_COMMON},
    )
    def get(self, request):
        membership = _membership(request)
        paginator = QueuePagination()
        posts = paginator.paginate_queryset(
            selectors.queue_posts(partner=membership.partner), request, view=self
        )
        return paginator.get_paginated_response(QueuePostSerializer(posts, many=True).data)


class QueueClaimView(APIView):
    permission_classes = [IsCheckerUser]

    @extend_schema(
        operation_id="queue_claim",
        summary="Claim the most trending eligible post",
        description="Gives the caller a lease on the top eligible post (FACTCHECK_CLAIM_MINUTES). "
        "204 when nothing is eligible; 409 when the caller already holds FACTCHECK_MAX_CLAIMS "
        "live claims.",
        tags=["review"],
        request=None,
        responses={
            201: ClaimedSerializer,
            204: OpenApiResponse(description="Nothing is eligible right now."),
            409: OpenApiResponse(ErrorSerializer, description="At the claim limit."),
            **_COMMON,
        },
    )
    def post(self, request):
        _membership(request)
        try:
            claim = services.claim_next(user=request.user)
        except services.ClaimLimitReached as exc:
            raise ApiError(409, str(exc)) from exc
        if claim is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        body = ClaimedSerializer({"claim": claim, "post": claim.post}).data
        return Response(body, status=status.HTTP_201_CREATED)


_CLAIM_ERRORS = {
    404: OpenApiResponse(ErrorSerializer, description="No such claim of the caller's."),
    409: OpenApiResponse(ErrorSerializer, description="The claim has already ended."),
    **_COMMON,
}


class ClaimReleaseView(APIView):
    permission_classes = [IsCheckerUser]

    @extend_schema(
        operation_id="claim_release",
        summary="Release a claim: the post goes back to the queue",
        tags=["review"],
        request=None,
        responses={200: ClaimStateSerializer, **_CLAIM_ERRORS},
    )
    def post(self, request, claim_id: int):
        _membership(request)
        claim = selectors.claim_for_user(claim_id=claim_id, user=request.user)
        try:
            services.claim_release(claim=claim, user=request.user)
        except services.ClaimNotActive as exc:
            raise ApiError(409, str(exc)) from exc
        return Response(ClaimStateSerializer(claim).data)


class ClaimSkipView(APIView):
    permission_classes = [IsCheckerUser]

    @extend_schema(
        operation_id="claim_skip",
        summary="Skip a claimed post: the partner never sees it again, others still can",
        tags=["review"],
        request=SkipInputSerializer,
        responses={
            200: ClaimStateSerializer,
            400: OpenApiResponse(FieldErrorsSerializer, description="A bad reason or note."),
            **_CLAIM_ERRORS,
        },
    )
    def post(self, request, claim_id: int):
        _membership(request)
        claim = selectors.claim_for_user(claim_id=claim_id, user=request.user)
        data = SkipInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            services.claim_skip(claim=claim, user=request.user, **data.validated_data)
        except services.ClaimNotActive as exc:
            raise ApiError(409, str(exc)) from exc
        except ValidationError as exc:
            raise serializers.ValidationError(exc.message_dict) from exc
        return Response(ClaimStateSerializer(claim).data)


class PostRatingsView(APIView):
    permission_classes = [IsCheckerUser]

    @extend_schema(
        operation_id="post_rating_create",
        summary="Rate a post the caller holds a live claim on",
        description="Completes the caller's claim and saves the partner's next rating version; "
        "the demotion follows on commit. No claim id in the body: the caller's live claim on "
        "the post is used.",
        tags=["review"],
        request=RatingInputSerializer,
        responses={
            201: RatingCreatedSerializer,
            400: OpenApiResponse(FieldErrorsSerializer, description="Invalid rating."),
            404: OpenApiResponse(ErrorSerializer, description="No such post."),
            409: OpenApiResponse(ErrorSerializer, description="No live claim on it."),
            **_COMMON,
        },
    )
    def post(self, request, external_id: str):
        _membership(request)
        post = selectors.post_by_external_id(external_id)
        claim = selectors.own_active_claim(post=post, user=request.user)
        if claim is None:
            raise ApiError(409, "You hold no live claim on this post: claim it first.")
        data = RatingInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            rating = services.rating_submit(claim=claim, user=request.user, **data.validated_data)
        except services.ClaimNotActive as exc:
            raise ApiError(409, str(exc)) from exc
        except ValidationError as exc:
            raise serializers.ValidationError(exc.message_dict) from exc
        return Response(RatingCreatedSerializer(rating).data, status=status.HTTP_201_CREATED)


urlpatterns = [
    path("queue/", QueueView.as_view(), name="queue"),
    path("queue/claim", QueueClaimView.as_view(), name="queue-claim"),
    path("claims/<int:claim_id>/release", ClaimReleaseView.as_view(), name="claim-release"),
    path("claims/<int:claim_id>/skip", ClaimSkipView.as_view(), name="claim-skip"),
    path(
        "posts/<post_external_id:external_id>/ratings",
        PostRatingsView.as_view(),
        name="post-ratings",
    ),
]
