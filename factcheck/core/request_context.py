"""The id of the request (or task) being handled, for audit events and log lines."""

from contextvars import ContextVar

current_request_id: ContextVar[str] = ContextVar("current_request_id", default="")
