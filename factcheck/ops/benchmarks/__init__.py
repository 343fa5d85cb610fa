"""Benchmarks for ``manage.py benchmark``. Each module has ``run(ctx) -> list[Figure]``; every
figure is measured beside a baseline from the same run, because these machines are noisy."""

import statistics
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


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) > 1 else values[0]


def make_token(name: str, scope: str) -> str:
    """A service token for a benchmark, made directly rather than through
    api_client_create, so that benchmarks leave no audit trail."""
    from factcheck.partners.models import ApiClient

    token = ApiClient.generate_token()
    ApiClient.objects.create(
        name=name, scopes=[scope], token_hash=ApiClient.hash_token(token), token_prefix=token[:10]
    )
    return token
