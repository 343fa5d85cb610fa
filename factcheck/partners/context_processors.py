from django.urls import reverse

from factcheck.partners.access import roles_for

# (label, url name, which role sees it).
SECTIONS = [
    ("Queue", "review:queue", "checker"),
    ("Moderation", "moderation:queue", "moderator"),
    ("Dashboard", "dashboard:index", "any"),
    ("Admin", "admin:index", "admin"),
]


def navigation(request):
    """The header's links by role (DESIGN §2)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated or not hasattr(user, "memberships"):
        return {"roles": None, "nav_links": []}
    roles = roles_for(user)
    links = []
    for label, name, role in SECTIONS:
        if role == "any":
            allowed = roles.checker or roles.moderator or roles.admin
        else:
            allowed = getattr(roles, role)
        if not allowed:
            continue
        url = reverse(name)
        links.append({"label": label, "url": url, "current": request.path.startswith(url)})
    return {"roles": roles, "nav_links": links}
