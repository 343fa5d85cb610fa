from django.urls import path

from factcheck.dashboard import views

app_name = "dashboard"

urlpatterns = [
    path("", views.index, name="index"),
]
