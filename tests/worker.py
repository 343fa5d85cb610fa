"""A real Celery worker for integration tests (pytest markers ``postgres`` and ``worker``).

Use it from a conftest: ``from tests.worker import celery_worker_process  # noqa: F401``.
The worker is ``celery -A factcheck worker --pool prefork --concurrency 2`` in its own
process group, on Redis (``FACTCHECK_TEST_BROKER_URL``, default db 10 + the xdist worker's
number), against pytest's test
database, so the test's rows are committed for it to see (the fixture requests
``transactional_db``). Tasks the test enqueues (on-commit callbacks run for real) go to that
worker: eager mode is off.
"""

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from factcheck.celery import app as celery_app


def _broker_url() -> str:
    """One Redis database per pytest-xdist worker: two sessions' Celery workers on one broker
    would take each other's tasks and run them against the other session's test database."""
    if os.environ.get("FACTCHECK_TEST_BROKER_URL"):
        return os.environ["FACTCHECK_TEST_BROKER_URL"]
    index = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
    return f"redis://127.0.0.1:6379/{10 + index}"


BROKER_URL = _broker_url()
READY_SECONDS = 60


def wait_for(predicate: Callable[[], object], *, seconds: float, what: str, log=None):
    """Poll until ``predicate()`` is truthy and return its value; fail with ``what`` (and the
    worker's log) when it never is. A bound on waiting, not a timing assertion."""
    deadline = time.monotonic() + seconds
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            tail = f"\n--- worker log ---\n{log()}" if log else ""
            pytest.fail(f"Gave up after {seconds:g} s waiting for {what}.{tail}")
        time.sleep(0.05)


def database_url() -> str:
    db = connection.settings_dict
    if connection.vendor != "postgresql":
        raise RuntimeError("The worker fixture needs PostgreSQL (DATABASE_URL=postgres://…).")
    auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


class Worker:
    def __init__(self, env: dict, log_path: Path):
        self.env = env
        self.log_path = log_path
        self.process: subprocess.Popen | None = None
        self.starts = 0

    def start(self) -> None:
        self.starts += 1
        name = f"test-{os.getpid()}-{self.starts}@%h"
        log = self.log_path.open("a")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "factcheck", "worker", "--pool", "prefork"]
            + ["--concurrency", "2", "--loglevel", "INFO", "--without-heartbeat"]
            + ["--without-gossip", "--without-mingle", "-n", name],
            cwd=settings.BASE_DIR,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, so kill() takes the children too
        )
        wait_for(
            lambda: self._ready_count() >= self.starts or self.process.poll() is not None,
            seconds=READY_SECONDS,
            what="the Celery worker to start",
            log=self.log,
        )
        if self.process.poll() is not None:
            pytest.fail(f"The Celery worker exited at start:\n{self.log()}")

    def kill(self) -> None:
        """kill -9 the worker and its pool processes, mid-task if need be."""
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()

    def log(self) -> str:
        """The end of the worker's log, for failure messages."""
        return self.log_path.read_text()[-6000:] if self.log_path.exists() else ""

    def _ready_count(self) -> int:
        return self.log_path.read_text().count(" ready.") if self.log_path.exists() else 0


def _wait_for_worker_sessions_to_end() -> None:
    """A dead worker's database sessions end a moment after its processes; the test database
    cannot be flushed or dropped while they linger, so wait for them (and end stragglers)."""
    others = (
        "FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() "
        "AND backend_type = 'client backend'"
    )
    deadline = time.monotonic() + 10
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(f"SELECT count(*) {others}")
            if not cursor.fetchone()[0]:
                return
            time.sleep(0.1)
        cursor.execute(f"SELECT pg_terminate_backend(pid) {others}")


def _use_broker(url: str, *, eager: bool) -> None:
    # Celery reads CELERY_BROKER_URL from the environment before its own setting.
    os.environ["CELERY_BROKER_URL"] = url
    celery_app.conf.broker_url = url
    celery_app.conf.broker_transport_options = {"socket_connect_timeout": 3, "socket_timeout": 5}
    celery_app.conf.task_always_eager = eager
    # Drop pooled connections to the previous broker.
    celery_app._pool = None
    if "amqp" in celery_app.__dict__:
        celery_app.amqp._producer_pool = None


@pytest.fixture
def celery_worker_process(transactional_db, tmp_path):
    previous = (celery_app.conf.broker_url, dict(celery_app.conf.broker_transport_options or {}))
    previous_env = os.environ.get("CELERY_BROKER_URL")
    _use_broker(BROKER_URL, eager=False)
    celery_app.control.purge()  # left-overs of an interrupted run would only add noise
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "CELERY_BROKER_URL": BROKER_URL,
        "FACTCHECK_RECONCILE_AFTER_SECONDS": "0",
    }
    worker = Worker(env, tmp_path / "worker.log")
    worker.start()
    try:
        yield worker
    finally:
        # Before pytest-django flushes the tables: a worker still connected would block it.
        worker.stop()
        _wait_for_worker_sessions_to_end()
        _use_broker(previous[0], eager=True)
        celery_app.conf.broker_transport_options = previous[1]
        if previous_env is None:
            os.environ.pop("CELERY_BROKER_URL", None)
        else:
            os.environ["CELERY_BROKER_URL"] = previous_env
