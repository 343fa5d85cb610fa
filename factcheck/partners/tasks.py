from celery import shared_task

from factcheck.partners import services


@shared_task
def accreditation_check() -> dict:
    return services.accreditation_check()
