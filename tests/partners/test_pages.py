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
