from django.db import connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache

from factcheck.celery import app as celery_app


def _database_status() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return "ok"
    except Exception as exc:  # any failure is reported, not raised: this is the health page
        return f"error: {exc}".strip()[:300]


def _broker_status() -> str:
    try:
        with celery_app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=3)
        return "ok"
    except Exception as exc:
        return f"error: {exc}".strip()[:300]


@never_cache
def healthz(request):
    body = {"database": _database_status(), "broker": _broker_status()}
    healthy = all(value == "ok" for value in body.values())
    return JsonResponse(body, status=200 if healthy else 503)
