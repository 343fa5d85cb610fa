"""Structured logs: one JSON object per line, with the request id."""

import json
import logging

from factcheck.core.request_context import current_request_id


class RequestIdFilter(logging.Filter):
    def filter(self, record):
        record.request_id = current_request_id.get()
        return True


class JsonFormatter(logging.Formatter):
    def format(self, record):
        entry = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if getattr(record, "request_id", ""):
            entry["request_id"] = record.request_id
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)
