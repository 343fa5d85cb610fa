import os
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from factcheck.ops import demo_data


class Command(BaseCommand):
    help = (
        "Migrate, seed demo partners, people and posts, print the logins, then run the web "
        "server, a Celery worker and beat until Ctrl-C."
    )

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--password", default="demo", help="Password of every demo login.")
        parser.add_argument("--no-worker", action="store_true", help="Run the web server only.")
        parser.add_argument(
            "--seed-only", action="store_true", help="Seed, print the logins, exit."
        )

    def handle(self, *args, host, port, password, no_worker, seed_only, **options):
        self.stdout.write("Migrating the database…")
        call_command("migrate", interactive=False, verbosity=0)
        self.stdout.write("Seeding demo data…")
        summary = demo_data.seed(password=password, progress=self.stdout.write)
        url = f"http://{host}:{port}/"
        self.stdout.write("")
        self.stdout.write(self.style.SUCCESS(f"factcheck demo at {url}"))
        self.stdout.write(f"Database: {settings.DATABASES['default']['NAME']}")
        for line in summary.lines:
            self.stdout.write(f"  {line}")
        self.stdout.write(f"Logins (password {password!r}):")
        for login in summary.logins:
            self.stdout.write(f"  {login.email:<24} {login.role}")
        if seed_only:
            return
        self._run(host, port, with_worker=not no_worker)

    def _run(self, host: str, port: int, *, with_worker: bool) -> None:
        manage = [sys.executable, str(settings.BASE_DIR / "manage.py")]
        celery = [sys.executable, "-m", "celery", "-A", "factcheck"]
        commands = {"web": [*manage, "runserver", "--noreload", f"{host}:{port}"]}
        if with_worker:
            commands["worker"] = [*celery, "worker", "--loglevel", "INFO", "--concurrency", "2"]
            commands["beat"] = [
                *celery,
                "beat",
                "--loglevel",
                "INFO",
                "--schedule",
                settings.CELERY_BEAT_SCHEDULE_FILENAME,
            ]
        children = {
            name: subprocess.Popen(command, cwd=settings.BASE_DIR, env=os.environ.copy())
            for name, command in commands.items()
        }
        self.stdout.write(f"Running {', '.join(children)}. Press Ctrl-C to stop.")
        stopping = False

        def stop(*_):
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGTERM, stop)
        try:
            while not stopping:
                for name, child in children.items():
                    if child.poll() is not None:
                        self.stderr.write(
                            f"The {name} process exited with code {child.returncode}."
                        )
                        stopping = True
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            self.stdout.write("Stopping…")
            for child in children.values():
                if child.poll() is None:
                    child.send_signal(signal.SIGTERM)
            deadline = time.monotonic() + 10
            for child in children.values():
                try:
                    child.wait(timeout=max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    child.kill()
            self.stdout.write("Stopped.")
