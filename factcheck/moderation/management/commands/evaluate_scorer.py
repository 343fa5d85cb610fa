import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from factcheck.moderation.scorer import ATTRIBUTES, ESCALATING, Scorer, get_scorer

DEFAULT_FILE = Path(settings.BASE_DIR) / "tests" / "data" / "scorer_eval.jsonl"

# Rows of these categories carry no escalating label: escalating one is a false positive.
BENIGN = ("neutral", "idiom", "counter_speech", "news_report", "sports_games")
# The part the false-positive target is set on.
TARGET_BENIGN = ("neutral", "idiom", "counter_speech")
RECALL_TARGETS = {"THREAT": 0.9, "IDENTITY_ATTACK": 0.9}
FALSE_POSITIVE_TARGET = 0.05


@dataclass
class Counts:
    support: int = 0  # rows labelled with it
    predicted: int = 0  # rows scored at or above the threshold
    true_positives: int = 0

    @property
    def precision(self) -> float | None:
        return self.true_positives / self.predicted if self.predicted else None

    @property
    def recall(self) -> float | None:
        return self.true_positives / self.support if self.support else None


@dataclass
class Evaluation:
    rows: int = 0
    attributes: dict[str, Counts] = field(default_factory=lambda: {a: Counts() for a in ATTRIBUTES})
    overall: Counts = field(default_factory=Counts)
    benign: dict[str, list[int]] = field(default_factory=dict)  # category → [escalated, rows]
    misses: list[tuple[int, str, str]] = field(default_factory=list)  # (line, attribute, text)
    false_alarms: list[tuple[int, str, str]] = field(default_factory=list)

    def false_positive_rate(self, categories) -> float | None:
        escalated = sum(self.benign.get(c, [0, 0])[0] for c in categories)
        rows = sum(self.benign.get(c, [0, 0])[1] for c in categories)
        return escalated / rows if rows else None

    def missed_targets(self) -> list[str]:
        missed = []
        for name, target in RECALL_TARGETS.items():
            recall = self.attributes[name].recall
            if recall is None or recall < target:
                missed.append(f"{name} recall {_fmt(recall)} < {target:.2f}")
        rate = self.false_positive_rate(TARGET_BENIGN)
        if rate is None or rate > FALSE_POSITIVE_TARGET:
            missed.append(
                f"false-positive rate on {'+'.join(TARGET_BENIGN)} {_fmt(rate)} > "
                f"{FALSE_POSITIVE_TARGET:.2f}"
            )
        return missed


def load_rows(path: Path, half: str | None = None) -> list[tuple[int, dict]]:
    """(line number, row) for every row, or the rows on even or odd line numbers."""
    rows = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            if half == "even" and number % 2 or half == "odd" and not number % 2:
                continue
            try:
                rows.append((number, json.loads(line)))
            except json.JSONDecodeError as exc:
                raise CommandError(f"{path}:{number}: not JSON ({exc})") from exc
    return rows


def evaluate(rows: list[tuple[int, dict]], scorer: Scorer, threshold: float) -> Evaluation:
    evaluation = Evaluation(rows=len(rows))
    for number, row in rows:
        result = scorer.score(row["text"], row["language"])
        labels = set(row.get("labels") or [])
        for name in ATTRIBUTES:
            counts = evaluation.attributes[name]
            predicted = result.scores[name].score >= threshold
            counts.support += name in labels
            counts.predicted += predicted
            counts.true_positives += predicted and name in labels
            if name in labels and not predicted:
                evaluation.misses.append((number, name, row["text"]))
        labelled = bool(labels & set(ESCALATING))
        escalated = result.escalates(threshold)
        evaluation.overall.support += labelled
        evaluation.overall.predicted += escalated
        evaluation.overall.true_positives += labelled and escalated
        category = row.get("category", "")
        if category in BENIGN:
            tally = evaluation.benign.setdefault(category, [0, 0])
            tally[0] += escalated
            tally[1] += 1
            if escalated:
                evaluation.false_alarms.append((number, category, row["text"]))
    return evaluation


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


class Command(BaseCommand):
    help = (
        "Evaluate the configured scorer on the labelled set: precision and recall per "
        "attribute and overall at the escalation threshold, and the false-positive rate on "
        "benign rows. --check exits non-zero when a target is missed."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--file", default=str(DEFAULT_FILE), help="A JSON-lines evaluation set."
        )
        parser.add_argument(
            "--threshold",
            type=float,
            default=None,
            help="Escalation threshold (default: FACTCHECK_ESCALATION_THRESHOLD).",
        )
        parser.add_argument(
            "--check", action="store_true", help="Exit non-zero on a missed target."
        )
        parser.add_argument(
            "--half",
            choices=["even", "odd"],
            help="Only rows on even or odd line numbers (tune on one half, check the other).",
        )
        parser.add_argument(
            "--repeat",
            type=int,
            default=0,
            help="Also time the scorer over the set repeated this many times (posts/s).",
        )

    def handle(self, *args, file, threshold=None, check=False, half=None, repeat=0, **options):
        path = Path(file)
        if not path.exists():
            raise CommandError(f"No evaluation set at {path}.")
        threshold = settings.FACTCHECK_ESCALATION_THRESHOLD if threshold is None else threshold
        scorer = get_scorer()
        rows = load_rows(path, half)
        if not rows:
            raise CommandError(f"{path} has no rows.")
        evaluation = evaluate(rows, scorer, threshold)
        self._report(evaluation, path, half, threshold, scorer)
        verbosity = options.get("verbosity", 1)
        if verbosity >= 2:
            for number, name, text in evaluation.misses:
                self.stdout.write(f"  missed {name:<16} line {number}: {text}")
            for number, category, text in evaluation.false_alarms:
                self.stdout.write(f"  false alarm {category:<14} line {number}: {text}")
        if repeat > 0:
            self._time(scorer, rows, repeat)
        missed = evaluation.missed_targets()
        if missed:
            self.stdout.write("Targets missed: " + "; ".join(missed))
            if check:
                raise CommandError("The scorer misses its targets.")
        else:
            self.stdout.write("Targets met.")

    def _report(self, evaluation: Evaluation, path, half, threshold, scorer):
        which = f"{half} lines" if half else "all lines"
        self.stdout.write(
            f"Scorer {scorer.version} on {path.name} ({evaluation.rows} rows, {which}), "
            f"threshold {threshold:.2f}"
        )
        header = f"{'attribute':<22} {'labelled':>8} {'flagged':>8} {'correct':>8} "
        self.stdout.write(header + f"{'precision':>10} {'recall':>8}")
        lines = [(name, evaluation.attributes[name]) for name in ATTRIBUTES]
        lines.append(("overall (escalate)", evaluation.overall))
        for name, counts in lines:
            self.stdout.write(
                f"{name:<22} {counts.support:>8} {counts.predicted:>8} {counts.true_positives:>8} "
                f"{_fmt(counts.precision):>10} {_fmt(counts.recall):>8}"
            )
        self.stdout.write("False positives (escalated benign rows):")
        for category in BENIGN:
            escalated, rows = evaluation.benign.get(category, [0, 0])
            self.stdout.write(f"  {category:<20} {escalated:>3} / {rows:<3}")
        target_rate = evaluation.false_positive_rate(TARGET_BENIGN)
        all_rate = evaluation.false_positive_rate(BENIGN)
        self.stdout.write(
            f"  false-positive rate, {'+'.join(TARGET_BENIGN)}: {_fmt(target_rate)} "
            f"(target <= {FALSE_POSITIVE_TARGET:.2f})"
        )
        self.stdout.write(f"  false-positive rate, all benign categories: {_fmt(all_rate)}")

    def _time(self, scorer, rows, repeat):
        texts = [(row["text"], row["language"]) for _, row in rows]
        started = time.perf_counter()
        for round_number in range(repeat):
            for text, language in texts:
                scorer.score(text, language)
            if repeat >= 10 and (round_number + 1) % max(1, repeat // 5) == 0:
                self.stderr.write(f"  timed {round_number + 1}/{repeat} rounds")
        elapsed = time.perf_counter() - started
        posts = len(texts) * repeat
        self.stdout.write(
            f"Throughput: {posts / elapsed:,.0f} posts/s ({posts} posts in {elapsed:.2f} s)"
        )
