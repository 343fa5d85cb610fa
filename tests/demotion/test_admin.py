import pytest

from factcheck.core.models import AuditEvent
from factcheck.demotion.models import Demotion, DemotionPolicy
from tests.factories import PostFactory

POLICY_URL = "/admin/demotion/demotionpolicy/{}/change/"


def _form(policy, **changes):
    data = {"multiplier": policy.multiplier, "show_label": "on" if policy.show_label else ""}
    data["strike"] = "on" if policy.strike else ""
    data.update(changes)
    return {key: value for key, value in data.items() if value != ""}


@pytest.mark.django_db
def test_it_lets_an_admin_edit_a_policy_audited_and_applied(
    client_for, ada, rate, alice, django_capture_on_commit_callbacks
):
    post = PostFactory()
    rate(post, alice, "false")
    policy = DemotionPolicy.objects.get(verdict="false")
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(ada).post(
            POLICY_URL.format(policy.pk), _form(policy, multiplier="0.1")
        )
    assert response.status_code == 302
    policy.refresh_from_db()
    assert policy.multiplier == 0.1
    event = AuditEvent.objects.get(action="demotion_policy.change")
    assert event.actor == ada
    assert event.before == {
        "verdict": "false",
        "multiplier": 0.2,
        "show_label": True,
        "strike": True,
    }
    assert event.after == {
        "verdict": "false",
        "multiplier": 0.1,
        "show_label": True,
        "strike": True,
    }
    assert Demotion.objects.get(post=post).multiplier == 0.1


@pytest.mark.django_db
def test_it_refuses_a_multiplier_outside_0_to_1(client_for, ada):
    policy = DemotionPolicy.objects.get(verdict="false")
    response = client_for(ada).post(POLICY_URL.format(policy.pk), _form(policy, multiplier="1.5"))
    assert response.status_code == 200
    assert "Ensure this value is less than or equal to 1.0" in response.content.decode()
    policy.refresh_from_db()
    assert policy.multiplier == 0.2
    assert not AuditEvent.objects.filter(action="demotion_policy.change").exists()


@pytest.mark.django_db
def test_it_records_nothing_when_a_policy_is_saved_unchanged(client_for, ada):
    policy = DemotionPolicy.objects.get(verdict="partly_false")
    client_for(ada).post(POLICY_URL.format(policy.pk), _form(policy))
    assert not AuditEvent.objects.filter(action="demotion_policy.change").exists()


@pytest.mark.django_db
def test_it_keeps_the_policy_to_one_row_per_verdict_and_the_table_read_only(client_for, ada):
    client = client_for(ada)
    assert client.get("/admin/demotion/demotionpolicy/").status_code == 200
    assert client.get("/admin/demotion/demotionpolicy/add/").status_code == 403
    assert client.get("/admin/demotion/demotion/add/").status_code == 403
    assert client.get("/admin/demotion/demotionchange/").status_code == 200
    assert DemotionPolicy.objects.count() == 7


@pytest.mark.django_db
def test_it_keeps_checkers_out_of_the_policy_admin(client_for, alice):
    response = client_for(alice).get("/admin/demotion/demotionpolicy/")
    assert response.status_code == 302
