from celery import shared_task

from factcheck.review import services


@shared_task
def claims_expire() -> int:
    """Every minute (beat): leases past their time go back to the queue."""
    return services.claims_expire()
