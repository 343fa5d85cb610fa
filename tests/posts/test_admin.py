import pytest

from factcheck.posts.models import Post
from tests.factories import PostFactory, SnapshotFactory

HOSTILE = '<script>alert("x")</script><b>bold</b>'


@pytest.mark.django_db
@pytest.mark.parametrize(("who", "status"), [("anonymous", 302), ("alice", 302), ("ada", 200)])
def test_it_lets_only_admins_see_posts(request, client_for, who, status):
    user = None if who == "anonymous" else request.getfixturevalue(who)
    response = client_for(user).get("/admin/posts/post/")
    assert response.status_code == status


@pytest.mark.django_db
def test_it_lists_posts_with_status_language_and_score_escaping_the_text(client_for, ada):
    PostFactory(external_id="p-hostile", text=HOSTILE, language_tag="pt-BR", trending_score=7.5)
    PostFactory(external_id="p-rated", status=Post.Status.RATED, shares=4321)

    page = client_for(ada).get("/admin/posts/post/").content.decode()

    assert "p-hostile" in page and "p-rated" in page
    assert HOSTILE not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    assert "pt-BR" in page and "7.50" in page
    assert "Rated" in page and "4321" in page


@pytest.mark.django_db
def test_it_finds_posts_by_external_id_and_author(client_for, ada):
    PostFactory(external_id="wanted-1", author_external_id="auth-9")
    PostFactory(external_id="other-2", author_external_id="auth-7")
    client = client_for(ada)

    by_id = client.get("/admin/posts/post/", {"q": "wanted-1"}).content.decode()
    by_author = client.get("/admin/posts/post/", {"q": "auth-7"}).content.decode()

    assert "wanted-1" in by_id and "other-2" not in by_id
    assert "other-2" in by_author and "wanted-1" not in by_author


@pytest.mark.django_db
def test_it_shows_a_post_read_only_with_its_snapshots(client_for, ada):
    post = PostFactory(text=HOSTILE)
    SnapshotFactory(post=post, shares=11111)
    client = client_for(ada)

    response = client.get(f"/admin/posts/post/{post.pk}/change/")

    page = response.content.decode()
    assert response.status_code == 200
    assert "11111" in page
    assert HOSTILE not in page
    assert 'name="_save"' not in page  # nothing to edit
    assert client.post(f"/admin/posts/post/{post.pk}/change/", {}).status_code == 403
    assert client.get("/admin/posts/post/add/").status_code == 403
