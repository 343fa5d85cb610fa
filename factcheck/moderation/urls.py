from django.urls import path

from factcheck.moderation import views

app_name = "moderation"

urlpatterns = [
    path("", views.queue, name="queue"),
    path("decided/", views.decided, name="decided"),
    path("pending-count", views.pending_count, name="pending_count"),
    path("<int:pk>/", views.detail, name="detail"),
    path("<int:pk>/claim", views.claim, name="claim"),
    path("<int:pk>/release", views.release, name="release"),
    path("<int:pk>/decide", views.decide, name="decide"),
    path("appeals/", views.appeals, name="appeals"),
    path("appeals/<int:pk>/", views.appeal_detail, name="appeal"),
    path("appeals/<int:pk>/decide", views.appeal_decide, name="appeal_decide"),
]
