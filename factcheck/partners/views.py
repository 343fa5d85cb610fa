from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import NoReverseMatch, reverse

from factcheck.partners.access import roles_for
from factcheck.partners.forms import LoginForm


class LoginView(auth_views.LoginView):
    form_class = LoginForm
    template_name = "registration/login.html"
    redirect_authenticated_user = True


def _first_existing(*names: str) -> str | None:
    for name in names:
        try:
            return reverse(name)
        except NoReverseMatch:
            continue
    return None


@login_required
def home(request):
    """Send each person to where their work is."""
    roles = roles_for(request.user)
    target = None
    if roles.checker:
        target = _first_existing("review:queue")
    if target is None and roles.moderator:
        target = _first_existing("moderation:queue")
    if target is None and roles.admin:
        target = reverse("admin:index")
    if target:
        return redirect(target)
    return render(request, "partners/home.html", {"roles": roles})
