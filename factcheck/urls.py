from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from factcheck.core.views import healthz

admin.site.site_header = "factcheck administration"
admin.site.site_title = "factcheck admin"

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/v1/", include("factcheck.api.urls")),
    path("", include("factcheck.partners.urls")),
    path("", include("factcheck.review.urls")),
    path("moderation/", include("factcheck.moderation.urls")),
    path("dashboard/", include("factcheck.dashboard.urls")),
]
