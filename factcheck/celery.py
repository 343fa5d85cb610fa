"""The Celery app. Tasks take ids, are idempotent, and are acknowledged only once done, so a
killed worker's task is delivered again instead of lost."""

import os

from celery import Celery
from celery.schedules import crontab

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "factcheck.settings")

app = Celery("factcheck")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.update(
    task_serializer="json",
    result_serializer="json",
    accept_content=["json"],
    task_ignore_result=True,
    task_acks_late=True,
    task_reject_on_worker_lost=True,
    worker_prefetch_multiplier=1,
    task_soft_time_limit=60,
    task_time_limit=90,
    broker_connection_retry_on_startup=True,
    timezone="UTC",
)
app.conf.beat_schedule = {
    "partners-check-accreditation": {
        "task": "factcheck.partners.tasks.accreditation_check",
        "schedule": crontab(minute=5, hour=0),
    },
    "review-expire-claims": {
        "task": "factcheck.review.tasks.claims_expire",
        "schedule": 60.0,
    },
    "demotion-reconcile": {
        "task": "factcheck.demotion.tasks.demotion_reconcile",
        "schedule": 60.0,
    },
    "demotion-age-strikes": {
        "task": "factcheck.demotion.tasks.author_standings_refresh",
        "schedule": crontab(minute=15),
    },
    "moderation-expire-claims": {
        "task": "factcheck.moderation.tasks.escalation_claims_expire",
        "schedule": 60.0,
    },
    # moderation: flagged ratings without their signal, screenings and notifications that a
    # broker outage kept from being sent
    "moderation-reconcile": {
        "task": "factcheck.moderation.tasks.moderation_reconcile",
        "schedule": 60.0,
    },
}
app.autodiscover_tasks()
