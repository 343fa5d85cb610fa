import pytest


@pytest.mark.django_db
def test_it_sends_anonymous_visitors_to_the_login_page(client):
    response = client.get("/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


@pytest.mark.django_db
def test_it_sends_each_role_home(client_for, ada):
    response = client_for(ada).get("/")
    assert response.status_code == 302
    assert response["Location"] == "/admin/"


@pytest.mark.django_db
def test_it_tells_someone_without_a_role_what_to_do(client_for):
    from tests.factories import UserFactory

    nobody = UserFactory(email="nobody@example.com")
    response = client_for(nobody).get("/")
    assert response.status_code == 200
    assert "Ask an administrator" in response.content.decode()


@pytest.mark.django_db
def test_it_puts_the_csrf_token_in_hx_headers_and_serves_htmx_locally(client_for):
    from tests.factories import UserFactory

    content = client_for(UserFactory()).get("/").content.decode()
    assert 'hx-headers=\'{"X-CSRFToken": "' in content
    assert "/static/vendor/htmx.min.js" in content
    assert "cdn" not in content.lower()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("who", "home"),
    [("alice", "/queue/"), ("bob", "/queue/"), ("lena", "/queue/"), ("moe", "/moderation/")],
)
def test_it_sends_each_person_to_their_work(request, client_for, who, home):
    response = client_for(request.getfixturevalue(who)).get("/")
    assert response.status_code == 302
    assert response["Location"] == home


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("who", "shown", "hidden"),
    [
        ("alice", ["Queue"], ["Moderation", "Admin"]),
        ("lena", ["Queue"], ["Moderation", "Admin"]),
        ("moe", ["Moderation"], ["Queue", "Admin"]),
    ],
)
def test_it_shows_navigation_by_role(request, client_for, who, shown, hidden):
    user = request.getfixturevalue(who)
    page = "/moderation/" if who == "moe" else "/queue/"
    content = client_for(user).get(page).content.decode()
    nav = content.split('<nav aria-label="Main">', 1)[1].split("</nav>", 1)[0]
    for label in shown:
        assert f">{label}" in nav
    for label in hidden:
        assert f">{label}<" not in nav and f">{label} " not in nav
