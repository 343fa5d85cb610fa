"""The trending score: how fast a post spreads, decayed by its age (``Post.trending_score``).

The formula::

    engagement = SHARE_WEIGHT * shares + views                      (SHARE_WEIGHT = 25)
    velocity   = (engagement_now - engagement_before) / hours_between
                 between the latest two snapshots; with one snapshot, engagement / hours
                 since published_at (DESIGN §8). hours_between is at least 5 minutes, so two
                 snapshots seconds apart cannot make a post look explosive.
    score      = log2(1 + velocity) + hours(published_at - EPOCH) / HALF_LIFE_HOURS
                 (EPOCH = 2025-01-01 UTC, HALF_LIFE_HOURS = 12)

Why this shape: the heat we want to rank by at a read time ``t`` is the velocity with an
exponential time decay of half-life H, ``velocity * 2 ** (-(t - published_at) / H)``. Its log2 is
``log2(velocity) + published_at / H - t / H``, and the last term is the same for every post at
any given ``t``. Dropping it leaves a number fixed at ingest time whose order is the order of the
decayed heat at *every* read time, so the queue reads the index ``post_queue_idx`` in order and
never recomputes at sort time, and a score computed yesterday stays comparable with one computed
a minute ago. Each half-life a post ages costs it one point, i.e. a post twelve hours older
needs twice the velocity to rank level. (``1 +`` keeps a post without engagement finite; it
changes the order only among posts gaining under a few engagements an hour.)

Scores are recomputed on every ingest of the post. A post the platform stops pushing keeps its
last velocity, but newer posts overtake it by one point per half-life, so it stops trending
without a periodic task. A share weighs 25 views because a share puts the post in front of a new
audience, which is what makes it viral.

The score's unit is "half-lives since the epoch", so it grows over the calendar; compare scores
with each other, never with a fixed threshold.
"""

import math
from datetime import UTC, datetime, timedelta

SHARE_WEIGHT = 25
HALF_LIFE_HOURS = 12.0
EPOCH = datetime(2025, 1, 1, tzinfo=UTC)
MIN_INTERVAL_HOURS = 5 / 60

_HOUR = timedelta(hours=1)


def engagement(*, shares: int, views: int) -> int:
    return SHARE_WEIGHT * shares + views


def velocity(
    *,
    published_at: datetime,
    latest: tuple[datetime, int, int],
    previous: tuple[datetime, int, int] | None = None,
) -> float:
    """Weighted engagement gained per hour. ``latest`` and ``previous`` are
    ``(observed_at, shares, views)`` of the latest two snapshots (``previous`` None with one)."""
    observed_at, shares, views = latest
    gained = engagement(shares=shares, views=views)
    since = published_at
    if previous is not None:
        since, previous_shares, previous_views = previous
        gained -= engagement(shares=previous_shares, views=previous_views)
    hours = max((observed_at - since) / _HOUR, MIN_INTERVAL_HOURS)
    return max(gained, 0) / hours


def score(*, velocity: float, published_at: datetime) -> float:
    return math.log2(1.0 + velocity) + (published_at - EPOCH) / _HOUR / HALF_LIFE_HOURS


def trending_score(
    *,
    published_at: datetime,
    latest: tuple[datetime, int, int],
    previous: tuple[datetime, int, int] | None = None,
) -> float:
    """The score to store for a post whose latest two snapshots are ``latest`` and
    ``previous`` (see the module docstring)."""
    return score(
        velocity=velocity(published_at=published_at, latest=latest, previous=previous),
        published_at=published_at,
    )


def heat_at(*, trending_score: float, at: datetime) -> float:
    """What a stored score stands for at ``at``: ``1 + velocity`` decayed by the post's age
    then, halving every half-life. Orders posts exactly as their scores do, in readable units
    (weighted engagement per hour) for display."""
    return 2.0 ** (trending_score - (at - EPOCH) / _HOUR / HALF_LIFE_HOURS)
