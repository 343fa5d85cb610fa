from django.urls import include, path

app_name = "api"

# One module per area, each with its own urlpatterns of APIViews (STYLE: api is the top layer,
# calling the services of the apps below it).
urlpatterns = [
    path("", include("factcheck.api.posts")),
    path("", include("factcheck.api.review")),
    path("", include("factcheck.api.demotion")),
    path("", include("factcheck.api.moderation")),
]
