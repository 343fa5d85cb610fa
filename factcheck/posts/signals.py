"""Events of this app that higher apps act on (STYLE: layers). Sent on commit, so receivers
see the committed rows; a receiver should only enqueue work (``task.delay``), never do it.

``posts_ingested``: a batch of posts was written by ``posts.services.posts_ingest``.

    sender            the Post model
    post_ids          list[int]: pks of every post the batch created or updated (a new
                      snapshot, new counts or changed content); posts that came back unchanged
                      are not in it, and a batch that changed nothing sends no signal
    text_changed_ids  list[int]: the subset created, or whose text changed, i.e. the posts
                      whose text needs scoring and matching against rated copies again

The moderation app connects to it (score texts, check user-report rates), and so may demotion
(propagate ratings to copies). Receivers are called with ``send_robust``: an exception is
logged and does not fail the ingest, which is already committed.
"""

from django.dispatch import Signal

posts_ingested = Signal()
