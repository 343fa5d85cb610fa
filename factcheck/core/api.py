"""The API's error shape (DESIGN §8): always JSON with "detail", plus "fields" for a single
object's validation errors (batch endpoints add "errors" themselves)."""

from rest_framework import exceptions, status
from rest_framework.views import exception_handler as drf_exception_handler


def _flatten(detail):
    if isinstance(detail, list):
        return [str(item) for item in detail]
    if isinstance(detail, dict):
        return {key: _flatten(value) for key, value in detail.items()}
    return [str(detail)]


def exception_handler(exc, context):
    response = drf_exception_handler(exc, context)
    if response is None:
        return None  # an unexpected error: Django's 500 handler answers (JSON for /api/)
    if isinstance(exc, exceptions.ValidationError):
        detail = exc.detail
        if isinstance(detail, dict):
            fields = _flatten(detail)
            non_field = fields.pop("non_field_errors", None)
            data = {"detail": non_field[0] if non_field else "Invalid input.", "fields": fields}
        else:
            messages = _flatten(detail)
            data = {"detail": messages[0] if messages else "Invalid input."}
        response.data = data
        response.status_code = status.HTTP_400_BAD_REQUEST
        return response
    detail = response.data.get("detail") if isinstance(response.data, dict) else response.data
    response.data = {"detail": str(detail)}
    return response


class ApiError(exceptions.APIException):
    """An API error with a chosen status: ``raise ApiError(409, "No live claim on this post.")``"""

    def __init__(self, status_code: int, detail: str):
        self.status_code = status_code
        super().__init__(detail)
