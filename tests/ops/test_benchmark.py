import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection


@pytest.mark.django_db
def test_it_refuses_to_measure_on_sqlite():
    if connection.vendor == "postgresql":
        pytest.skip("this is the SQLite answer")
    with pytest.raises(CommandError, match="PostgreSQL"):
        call_command("benchmark", "--only", "ingest")


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_it_reports_each_figure_beside_its_baseline(tmp_path, capsys):
    # A tiny run: this checks the command works end to end, not the figures' size.
    out = tmp_path / "bench.json"
    call_command("benchmark", "--only", "ingest,claim,lookup", "--scale", "0.01", "--json", out)
    results = json.loads(out.read_text())
    assert set(results) == {"ingest", "claim", "lookup"}
    by_name = {fig["name"]: fig for figures in results.values() for fig in figures}
    double = next(fig for name, fig in by_name.items() if name == "double claims")
    assert double["value"] == 0
    compared = [fig for fig in by_name.values() if fig["baseline"] is not None]
    assert len(compared) >= 4
    assert all(fig["ratio"] is not None and fig["ratio"] > 0 for fig in compared)
    table = capsys.readouterr().out
    assert "claim p95 latency" in table and "baseline" in table
