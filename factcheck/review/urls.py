from django.urls import path

from factcheck.review import converters, views  # noqa: F401  (converters registers post_external_id)

app_name = "review"

urlpatterns = [
    path("queue/", views.queue, name="queue"),
    path("queue/claim/", views.claim_next, name="claim_next"),
    path("review/<post_external_id:external_id>/", views.review, name="review"),
    path("review/<post_external_id:external_id>/rate/", views.rate, name="rate"),
    path(
        "review/<post_external_id:external_id>/demotion/",
        views.demotion_panel,
        name="demotion",
    ),
    path("claims/<int:claim_id>/release/", views.claim_release, name="claim_release"),
    path("claims/<int:claim_id>/skip/", views.claim_skip, name="claim_skip"),
]
