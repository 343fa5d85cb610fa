# The Celery app is loaded with Django so that @shared_task and delay_on_commit use it.
from factcheck.celery import app as celery_app

__all__ = ("celery_app",)
