from django.apps import AppConfig


class ReviewConfig(AppConfig):
    name = "factcheck.review"
    label = "review"
    verbose_name = "Review queue"

    def ready(self):
        from factcheck.partners.signals import member_deactivated, partner_suspended
        from factcheck.review import receivers

        partner_suspended.connect(
            receivers.release_partner_claims, dispatch_uid="review.release_partner_claims"
        )
        member_deactivated.connect(
            receivers.release_member_claims, dispatch_uid="review.release_member_claims"
        )
