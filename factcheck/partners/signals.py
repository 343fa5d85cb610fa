"""Events of this app that higher apps act on. Sent on commit; the review app's receivers
release the claims of a suspended partner or a deactivated member (STYLE: layers)."""

from django.dispatch import Signal

# partner: the Partner that may no longer act.
partner_suspended = Signal()
# user: the User who may no longer act.
member_deactivated = Signal()
