from unittest import mock

import pytest
from kombu.exceptions import OperationalError

from factcheck.demotion import tasks
from factcheck.demotion.selectors import demotion_state
from tests.factories import PostFactory


@pytest.mark.django_db
def test_it_has_no_state_for_an_unrated_post(db):
    assert demotion_state(post=PostFactory()) is None


@pytest.mark.django_db
def test_it_shows_pending_until_the_task_applies_the_rating(rate, alice):
    post = PostFactory()
    with mock.patch.object(tasks.demotion_apply, "apply_async", side_effect=OperationalError()):
        rating = rate(post, alice, "false")
    state = demotion_state(post=post)
    assert state["state"] == "pending"
    assert (state["multiplier"], state["label"], state["removed"]) == (1.0, "", False)
    assert state["updated_at"] == rating.created_at

    tasks.demotion_apply.delay(post.pk)
    state = demotion_state(post=post)
    assert state["state"] == "applied"
    assert (state["multiplier"], state["label"], state["removed"]) == (0.2, "false", False)
    assert state["reasons"] == ["Rated False by Partner A"]


@pytest.mark.django_db
def test_it_shows_pending_for_a_revision_over_an_applied_demotion(rate, alice, anna):
    post = PostFactory()
    rate(post, alice, "false")
    with mock.patch.object(tasks.demotion_apply, "apply_async", side_effect=OperationalError()):
        rate(post, anna, "true")
    state = demotion_state(post=post)
    # Still the applied values, but flagged: the revision is not in them yet.
    assert (state["state"], state["multiplier"]) == ("pending", 0.2)


@pytest.mark.django_db
def test_it_shows_none_when_the_ratings_leave_full_reach(rate, alice):
    post = PostFactory()
    rate(post, alice, "true")
    state = demotion_state(post=post)
    assert (state["state"], state["multiplier"], state["label"]) == ("none", 1.0, "")
    assert state["reasons"] == ["Rated True by Partner A"]
