from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render

from factcheck.partners.access import roles_for
from factcheck.partners.forms import LoginForm


class LoginView(auth_views.LoginView):
    form_class = LoginForm
    template_name = "registration/login.html"
    redirect_authenticated_user = True


@login_required
def home(request):
    """Send each person to where their work is."""
    roles = roles_for(request.user)
    for allowed, target in [
        (roles.checker, "review:queue"),
        (roles.moderator, "moderation:queue"),
        (roles.admin, "admin:index"),
    ]:
        if allowed:
            return redirect(target)
    return render(request, "partners/home.html", {"roles": roles})
