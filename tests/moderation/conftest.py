"""Moderation fixtures: a tiny webhook receiver on 127.0.0.1 (the only thing that leaves the
process), a helper that adds a signal, and a platform token for appeals."""

import http.server
import threading

import pytest

from factcheck.moderation import services
from factcheck.moderation.models import Source, Tier


class _Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802 (http.server's naming)
        body = self.rfile.read(int(self.headers["Content-Length"]))
        server = self.server
        server.received.append({"headers": dict(self.headers.items()), "body": body})
        code = server.statuses.pop(0) if server.statuses else 200
        self.send_response(code)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def celery_retries():
    """Eager tasks that propagate errors raise at their first retry; without propagation an
    eager task runs its retries at once, one after another, as a worker would with waits."""
    from factcheck.celery import app

    app.conf.task_eager_propagates = False
    yield
    app.conf.task_eager_propagates = True


@pytest.fixture
def webhook_server(settings, celery_retries):
    """A real HTTP server the webhooks are sent to. ``statuses`` queues answers (default
    200); ``received`` holds each request's headers and exact body bytes."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Receiver)
    server.received = []
    server.statuses = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    settings.FACTCHECK_WEBHOOK_URLS = [f"http://127.0.0.1:{server.server_port}/hooks/moderation"]
    settings.FACTCHECK_WEBHOOK_SECRET = "test-webhook-secret"
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture(autouse=True)
def _no_webhooks_by_default(settings):
    settings.FACTCHECK_WEBHOOK_URLS = []
    settings.FACTCHECK_BASE_URL = "https://factcheck.example"


@pytest.fixture
def add_signal(django_capture_on_commit_callbacks):
    """``add_signal(post, tier=Tier.HIGH, key="k1")``: a signal through the service, with its
    on-commit notifications run."""

    def add(post, *, tier=Tier.HIGH, key=None, source=Source.SCORER, score=0.9, categories=()):
        with django_capture_on_commit_callbacks(execute=True):
            return services.escalation_signal_add(
                post=post,
                source=source,
                tier=tier,
                score=score,
                details={"note": "test"},
                dedupe_key=key or f"test:{post.pk}:{tier}",
                categories=list(categories) or ["violence"],
            )

    return add
