"""Benchmarks for ``manage.py benchmark``. Each module has ``run(ctx) -> list[Figure]``; every
figure is measured beside a baseline from the same run, because these machines are noisy."""

from dataclasses import asdict, dataclass, field


@dataclass
class Figure:
    name: str
    value: float
    unit: str
    baseline_name: str = ""
    baseline: float | None = None
    # How value compares with baseline, e.g. 0.42 for "0.42x COPY"; target as text.
    ratio: float | None = None
    target: str = ""
    met: bool | None = None
    extra: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class Context:
    """What every benchmark may use: a scale factor for quick runs and a progress printer."""

    scale: float = 1.0
    progress: callable = print

    def n(self, full: int, minimum: int = 10) -> int:
        return max(minimum, int(full * self.scale))


# Module names under factcheck.ops.benchmarks, in the order they run.
SUITES = ["ingest", "claim", "lookup", "pipeline", "scorer"]
