from django.contrib.auth import views as auth_views
from django.urls import path

from factcheck.partners import views

urlpatterns = [
    path("", views.home, name="home"),
    path("accounts/login/", views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "accounts/set-password/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(
            template_name="registration/set_password.html", post_reset_login=False
        ),
        name="password_reset_confirm",
    ),
    path(
        "accounts/set-password/done/",
        auth_views.PasswordResetCompleteView.as_view(
            template_name="registration/set_password_done.html"
        ),
        name="password_reset_complete",
    ),
]
