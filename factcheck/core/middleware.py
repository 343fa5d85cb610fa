import re
import uuid

from factcheck.core.request_context import current_request_id

_SAFE_ID = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")


class RequestIdMiddleware:
    """Tags each request with an id (the caller's X-Request-ID when it is sane), used by audit
    events and logs, and echoes it in the response."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        given = request.headers.get("X-Request-ID", "")
        request.id = given if _SAFE_ID.match(given) else uuid.uuid4().hex
        token = current_request_id.set(request.id)
        try:
            response = self.get_response(request)
        finally:
            current_request_id.reset(token)
        response["X-Request-ID"] = request.id
        return response
