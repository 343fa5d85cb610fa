"""The moderation API (DESIGN §5.6–5.7, §8): escalations and decisions for moderators (a
browser session or a moderator's personal token), and removal appeals for the platform
(scope ``disputes:write``). The same services and rules as the browser pages."""

from django.core.exceptions import ValidationError
from django.urls import path
from django.utils import timezone
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
from factcheck.moderation import selectors, services
from factcheck.moderation.models import (
    CONTEXT_FLAGS,
    POLICY_CODES,
    Action,
    Escalation,
    RemovalAppeal,
    Source,
    Tier,
)
from factcheck.partners.access import is_moderator
from factcheck.partners.auth import HasScope, IsCheckerUser, request_actor

TIER_CODES = [tier.code for tier in reversed(Tier)]

# --- serializers ------------------------------------------------------------------------------


class EscalatedPostSerializer(serializers.Serializer):
    id = serializers.CharField(source="external_id", help_text="The platform's post id.")
    text = serializers.CharField()
    url = serializers.CharField()
    author = PostAuthorSerializer(source="*")
    language = serializers.CharField()
    status = serializers.CharField(help_text="queued, in_review, rated, ineligible or removed.")
    views = serializers.IntegerField()
    shares = serializers.IntegerField()
    reports_hate = serializers.IntegerField()
    reports_violence = serializers.IntegerField()
    trending_score = serializers.FloatField()


class DecisionSerializer(serializers.Serializer):
    action = serializers.ChoiceField(choices=Action.choices)
    policy_code = serializers.CharField()
    context_flags = serializers.ListField(child=serializers.CharField())
    note = serializers.CharField()
    decided_by = serializers.EmailField(source="decided_by.email", allow_null=True)
    decided_at = serializers.DateTimeField()


class EscalationSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField(help_text="open or decided.")
    tier = serializers.ChoiceField(choices=TIER_CODES, source="tier_code")
    sla_due_at = serializers.DateTimeField(help_text="When the decision is due (tier's SLA).")
    score = serializers.FloatField(allow_null=True, help_text="The highest scorer score, 0..1.")
    categories = serializers.ListField(child=serializers.CharField())
    sources = serializers.ListField(
        child=serializers.CharField(), help_text="checker_flag, scorer, user_reports."
    )
    created_at = serializers.DateTimeField()
    reopened_at = serializers.DateTimeField(allow_null=True)
    claimed_by = serializers.SerializerMethodField()
    claim_expires_at = serializers.SerializerMethodField()
    version = serializers.IntegerField(help_text="Send it with a decision.")
    decision = serializers.SerializerMethodField()
    post = EscalatedPostSerializer()

    def _holder(self, escalation):
        return escalation.claim_holder(self.context["now"])

    def get_claimed_by(self, escalation) -> str | None:
        holder = self._holder(escalation)
        return holder.email if holder else None

    def get_claim_expires_at(self, escalation) -> str | None:
        if self._holder(escalation) is None:
            return None
        return serializers.DateTimeField().to_representation(escalation.claim_expires_at)

    @extend_schema_field(DecisionSerializer(allow_null=True))
    def get_decision(self, escalation):
        if not escalation.action:
            return None
        return DecisionSerializer(escalation).data


class SignalSerializer(serializers.Serializer):
    source = serializers.ChoiceField(choices=Source.choices)
    tier = serializers.ChoiceField(choices=TIER_CODES, source="tier_code")
    score = serializers.FloatField(allow_null=True)
    details = serializers.DictField(help_text="Scorer result with matched spans, flag or rate.")
    created_at = serializers.DateTimeField()


class EscalationDetailSerializer(EscalationSerializer):
    signals = SignalSerializer(many=True, source="signals_list")


class EscalationPageSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = EscalationSerializer(many=True)


class DecisionInputSerializer(serializers.Serializer):
    action = serializers.ChoiceField(choices=Action.choices)
    policy_code = serializers.ChoiceField(
        choices=list(POLICY_CODES.items()),
        required=False,
        allow_blank=True,
        default="",
        help_text="Required to remove or refer.",
    )
    note = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=5000,
        help_text="Required to remove or refer.",
    )
    context_flags = serializers.ListField(
        child=serializers.ChoiceField(choices=list(CONTEXT_FLAGS.items())),
        required=False,
        default=list,
    )
    version = serializers.IntegerField(
        min_value=1, help_text="The escalation's version the decision was made on."
    )

    def validate(self, data):
        errors = services.decision_errors(
            action=data["action"],
            policy_code=data["policy_code"],
            note=data["note"],
            context_flags=data["context_flags"],
        )
        if errors:
            raise serializers.ValidationError(errors)
        return data


class RemovalSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    post_id = serializers.CharField(source="post.external_id")
    policy_code = serializers.CharField()
    referral = serializers.BooleanField(help_text="Marked for law-enforcement referral.")
    created_at = serializers.DateTimeField()
    appeal_deadline = serializers.SerializerMethodField()

    def get_appeal_deadline(self, removal) -> str:
        return serializers.DateTimeField().to_representation(services.appeal_deadline(removal))


class DecisionResultSerializer(serializers.Serializer):
    escalation = EscalationSerializer()
    removal = RemovalSerializer(allow_null=True)


class AppealInputSerializer(serializers.Serializer):
    text = serializers.CharField(max_length=5000, help_text="The author's reasons.")


class AppealSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    post_id = serializers.CharField(source="removal.post.external_id")
    status = serializers.CharField(help_text="pending, upheld or overturned.")
    text = serializers.CharField()
    created_at = serializers.DateTimeField()
    decided_at = serializers.DateTimeField(allow_null=True)
    removal = RemovalSerializer()


class EscalationPagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200


# --- permissions ------------------------------------------------------------------------------


class IsModeratorUser(IsCheckerUser):
    """A moderator acting for themselves: a browser session or their personal token."""

    message = "Only moderators can do this (a session, or a moderator's personal token)."

    def has_permission(self, request, view):
        return super().has_permission(request, view) and is_moderator(request.user)


_COMMON = {
    401: OpenApiResponse(ErrorSerializer, description="No or bad credentials."),
    403: OpenApiResponse(ErrorSerializer, description="Not a moderator."),
}
_NOT_FOUND = {404: OpenApiResponse(ErrorSerializer, description="No such escalation.")}


def _context() -> dict:
    return {"now": timezone.now()}


def _escalation(escalation_id: int) -> Escalation:
    escalation = (
        Escalation.objects.select_related("post", "claimed_by", "decided_by")
        .filter(pk=escalation_id)
        .first()
    )
    if escalation is None:
        raise ApiError(404, f"There is no escalation {escalation_id}.")
    return escalation


# --- views ------------------------------------------------------------------------------------


class EscalationListView(APIView):
    permission_classes = [IsModeratorUser]

    @extend_schema(
        operation_id="escalations_list",
        summary="Escalations: open ones most urgent first (tier, SLA due, trending score)",
        tags=["moderation"],
        parameters=[
            OpenApiParameter(
                "status", str, enum=Escalation.Status.values, description="Default open."
            ),
            OpenApiParameter("tier", str, enum=TIER_CODES),
            OpenApiParameter("source", str, enum=Source.values),
            OpenApiParameter("claim", str, enum=["mine", "unclaimed"]),
            OpenApiParameter("page", int, description="Page number, from 1."),
            OpenApiParameter("page_size", int, description="Escalations per page (at most 200)."),
        ],
        responses={
            200: EscalationPageSerializer,
            400: OpenApiResponse(ErrorSerializer, description="A bad filter value."),
            **_COMMON,
        },
    )
    def get(self, request):
        params = request.query_params
        choices = {
            "status": Escalation.Status.values,
            "tier": TIER_CODES,
            "source": Source.values,
            "claim": ["mine", "unclaimed"],
        }
        filters = {}
        for name, allowed in choices.items():
            value = params.get(name, "")
            if value and value not in allowed:
                raise ApiError(400, f"{name} must be one of: {', '.join(allowed)}.")
            if value:
                filters[name] = value
        paginator = EscalationPagination()
        escalations = paginator.paginate_queryset(
            selectors.escalation_queue(user=request.user, **filters), request, view=self
        )
        data = EscalationSerializer(escalations, many=True, context=_context()).data
        return paginator.get_paginated_response(data)


class EscalationDetailView(APIView):
    permission_classes = [IsModeratorUser]

    @extend_schema(
        operation_id="escalations_retrieve",
        summary="One escalation with its signals (and the version to decide on)",
        tags=["moderation"],
        responses={200: EscalationDetailSerializer, **_NOT_FOUND, **_COMMON},
    )
    def get(self, request, escalation_id: int):
        escalation = _escalation(escalation_id)
        escalation.signals_list = selectors.escalation_signals(escalation=escalation)
        return Response(EscalationDetailSerializer(escalation, context=_context()).data)


class EscalationClaimView(APIView):
    permission_classes = [IsModeratorUser]

    @extend_schema(
        operation_id="escalations_claim",
        summary="Claim an open escalation (a lease), or extend one's own claim",
        description="The lease lasts FACTCHECK_MODERATION_CLAIM_MINUTES; meanwhile other "
        "moderators can neither claim nor decide it.",
        tags=["moderation"],
        request=None,
        responses={
            200: EscalationSerializer,
            409: OpenApiResponse(
                ErrorSerializer, description="Decided, or claimed by someone else."
            ),
            **_NOT_FOUND,
            **_COMMON,
        },
    )
    def post(self, request, escalation_id: int):
        escalation = _escalation(escalation_id)
        try:
            escalation = services.escalation_claim(escalation=escalation, user=request.user)
        except services.EscalationConflict as exc:
            raise ApiError(409, str(exc)) from exc
        return Response(EscalationSerializer(escalation, context=_context()).data)


class EscalationDecisionView(APIView):
    permission_classes = [IsModeratorUser]

    @extend_schema(
        operation_id="escalations_decide",
        summary="Decide an escalation: remove, keep or refer",
        description="Remove takes the post down at once (the ranker lookup answers removed, "
        "multiplier 0); keep leaves it demoted only as rated; refer removes it and marks it "
        "for law-enforcement referral. Remove and refer need a policy code and a note. "
        "`version` is the escalation's version the decision was made on: 409 when it has "
        "changed since (a new signal, a reopening, another moderator's decision), or when "
        "another moderator holds the claim.",
        tags=["moderation"],
        request=DecisionInputSerializer,
        responses={
            200: DecisionResultSerializer,
            400: OpenApiResponse(FieldErrorsSerializer, description="Invalid decision."),
            409: OpenApiResponse(
                ErrorSerializer,
                description="Stale version, already decided, or claimed by someone else.",
            ),
            **_NOT_FOUND,
            **_COMMON,
        },
    )
    def post(self, request, escalation_id: int):
        escalation = _escalation(escalation_id)
        serializer = DecisionInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        try:
            escalation = services.escalation_decide(
                escalation=escalation, user=request.user, **serializer.validated_data
            )
        except services.EscalationConflict as exc:
            raise ApiError(409, str(exc)) from exc
        except ValidationError as exc:
            raise serializers.ValidationError(exc.message_dict) from exc
        removal = escalation.removals.select_related("post").filter(overturned_at=None).first()
        body = {
            "escalation": EscalationSerializer(escalation, context=_context()).data,
            "removal": RemovalSerializer(removal).data if removal else None,
        }
        return Response(body)


class RemovalAppealView(APIView):
    permission_classes = [HasScope.of("disputes:write")]

    @extend_schema(
        operation_id="removals_appeal",
        summary="Appeal a removal on the author's behalf: once, within 20 days",
        description="The appeal goes to moderators other than the one who removed the post. "
        "An overturn restores the post; the ranker lookup and change feed show it.",
        tags=["moderation"],
        request=AppealInputSerializer,
        responses={
            201: AppealSerializer,
            400: OpenApiResponse(FieldErrorsSerializer, description="No text."),
            404: OpenApiResponse(ErrorSerializer, description="The post is not removed."),
            409: OpenApiResponse(ErrorSerializer, description="This removal was already appealed."),
            410: OpenApiResponse(
                ErrorSerializer, description="The 20-day appeal window has closed."
            ),
            **_COMMON,
        },
    )
    def post(self, request, post_id: str):
        serializer = AppealInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        try:
            appeal = services.removal_appeal_file(
                post_external_id=post_id,
                text=serializer.validated_data["text"],
                actor=request_actor(request),
            )
        except services.AppealError as exc:
            raise ApiError(exc.status_code, str(exc)) from exc
        except ValidationError as exc:
            raise serializers.ValidationError(exc.message_dict) from exc
        return Response(AppealSerializer(appeal).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        operation_id="removals_appeal_retrieve",
        summary="The appeal of a post's latest removal and its status",
        tags=["moderation"],
        responses={
            200: AppealSerializer,
            404: OpenApiResponse(ErrorSerializer, description="No appeal for this post."),
            **_COMMON,
        },
    )
    def get(self, request, post_id: str):
        appeal = (
            RemovalAppeal.objects.select_related("removal", "removal__post")
            .filter(removal__post__external_id=post_id)
            .order_by("-created_at")
            .first()
        )
        if appeal is None:
            raise ApiError(404, f"Post {post_id} has no appeal.")
        return Response(AppealSerializer(appeal).data)


urlpatterns = [
    path("escalations/", EscalationListView.as_view(), name="escalation-list"),
    path(
        "escalations/<int:escalation_id>", EscalationDetailView.as_view(), name="escalation-detail"
    ),
    path(
        "escalations/<int:escalation_id>/claim",
        EscalationClaimView.as_view(),
        name="escalation-claim",
    ),
    path(
        "escalations/<int:escalation_id>/decision",
        EscalationDecisionView.as_view(),
        name="escalation-decision",
    ),
    path("removals/<str:post_id>/appeal", RemovalAppealView.as_view(), name="removal-appeal"),
]
