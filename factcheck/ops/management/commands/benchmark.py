import importlib
import json

from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from factcheck.ops.benchmarks import SUITES, Context


class Command(BaseCommand):
    help = (
        "Measure ingest, claims, the ranker lookup, the rating pipeline and the scorer, each "
        "beside a baseline from the same run. Needs PostgreSQL (DATABASE_URL); it writes "
        "to the configured database, so point it at a scratch one."
    )

    def add_arguments(self, parser):
        parser.add_argument("--json", dest="json_path", help="Also write the figures to this file.")
        parser.add_argument("--only", help=f"Comma-separated suites out of: {', '.join(SUITES)}.")
        parser.add_argument(
            "--scale", type=float, default=1.0, help="Shrink every workload (0.1 for a quick look)."
        )

    def handle(self, *args, json_path=None, only=None, scale=1.0, **options):
        if connection.vendor != "postgresql":
            raise CommandError("The benchmark runs on PostgreSQL: set DATABASE_URL=postgres://…")
        chosen = [name.strip() for name in only.split(",")] if only else SUITES
        unknown = [name for name in chosen if name not in SUITES]
        if unknown:
            raise CommandError(f"Unknown suite(s): {', '.join(unknown)}.")
        ctx = Context(scale=scale, progress=lambda text: self.stderr.write(f"  {text}"))
        results = {}
        for name in chosen:
            try:
                module = importlib.import_module(f"factcheck.ops.benchmarks.{name}")
            except ModuleNotFoundError:
                self.stderr.write(f"[{name}] not built yet, skipped")
                continue
            self.stderr.write(f"[{name}] running…")
            results[name] = [figure.as_dict() for figure in module.run(ctx)]
        self._print_table(results)
        if json_path:
            with open(json_path, "w") as handle:
                json.dump(results, handle, indent=2, default=str)
            self.stdout.write(f"Wrote {json_path}")

    def _print_table(self, results):
        header = f"{'figure':<44} {'value':>12} {'unit':<10} {'baseline':>12} {'ratio':>7}  target"
        self.stdout.write(header)
        self.stdout.write("-" * len(header))
        for suite, figures in results.items():
            for fig in figures:
                baseline = "" if fig["baseline"] is None else f"{fig['baseline']:.4g}"
                ratio = "" if fig["ratio"] is None else f"{fig['ratio']:.2f}x"
                verdict = "" if fig["met"] is None else ("met" if fig["met"] else "MISSED")
                self.stdout.write(
                    f"{suite + ': ' + fig['name']:<44} {fig['value']:>12.4g} {fig['unit']:<10} "
                    f"{baseline:>12} {ratio:>7}  {fig['target']} {verdict}".rstrip()
                )
