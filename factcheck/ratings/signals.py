"""Events of the ratings app that higher apps act on (STYLE: layers). Sent on commit.

The demotion app's receiver (connected in its AppConfig.ready) enqueues the demotion task; the
moderation app may listen for flagged ratings the same way."""

from django.dispatch import Signal

# rating: the Rating just committed.
rating_created = Signal()
