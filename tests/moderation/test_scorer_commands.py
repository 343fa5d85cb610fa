import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings

from factcheck.moderation.management.commands.evaluate_scorer import (
    DEFAULT_FILE,
    FALSE_POSITIVE_TARGET,
    RECALL_TARGETS,
    TARGET_BENIGN,
    evaluate,
    load_rows,
)
from factcheck.moderation.scorer import ATTRIBUTES, RULES_VERSION, RuleScorer, empty_result


class SilentScorer:
    """Scores everything zero: misses every target."""

    version = "silent-1"

    def score(self, text, language):
        return empty_result(self.version, language_supported=True)


def score_lines(text, *args):
    out = StringIO()
    call_command("score_text", *args, stdin=StringIO(text), stdout=out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


# --- score_text ------------------------------------------------------------------------------


def test_it_writes_one_json_object_per_input_line():
    lines = score_lines("I will kill you\nJust finished my morning run\n\nMigrants are vermin\n")

    assert len(lines) == 4
    assert [line["escalate"] for line in lines] == [True, False, False, True]
    assert [line["tier"] for line in lines] == ["urgent", None, None, "high"]
    first = lines[0]
    assert first["version"] == RULES_VERSION
    assert first["language_supported"] is True
    assert set(first["attributes"]) == set(ATTRIBUTES)
    assert first["attributes"]["THREAT"]["score"] >= 0.7
    assert first["attributes"]["THREAT"]["spans"] == [
        {"start": 0, "end": 15, "text": "I will kill you", "rule": "threat.intent"}
    ]


def test_it_scores_the_last_line_without_a_newline_and_keeps_carriage_returns_out():
    lines = score_lines("hello\r\nTe voy a matar", "--language", "es")

    assert len(lines) == 2
    assert lines[1]["escalate"] is True
    assert lines[1]["attributes"]["THREAT"]["spans"][0]["text"] == "Te voy a matar"


def test_it_scores_a_language_without_rules_as_unknown():
    (line,) = score_lines("I will kill you\n", "--language", "fr")

    assert line["language_supported"] is False
    assert line["escalate"] is False


@override_settings(FACTCHECK_ESCALATION_THRESHOLD=0.95)
def test_it_escalates_at_the_current_threshold():
    (line,) = score_lines("I will kill you\n")

    assert line["attributes"]["THREAT"]["score"] < 0.95
    assert line["escalate"] is False


def test_it_uses_the_configured_scorer():
    with override_settings(FACTCHECK_SCORER="tests.moderation.test_scorer.FixedScorer"):
        (line,) = score_lines("hello\n")

    assert line["version"] == "fixed-1"
    assert line["escalate"] is True


# --- evaluate_scorer -------------------------------------------------------------------------


def test_it_meets_the_targets_on_the_shipped_set():
    evaluation = evaluate(load_rows(DEFAULT_FILE), RuleScorer(), 0.7)

    assert evaluation.rows >= 200
    for name, target in RECALL_TARGETS.items():
        assert evaluation.attributes[name].recall >= target
    assert evaluation.false_positive_rate(TARGET_BENIGN) <= FALSE_POSITIVE_TARGET
    assert evaluation.missed_targets() == []


def test_it_raises_no_false_alarm_on_the_blind_set():
    # 200 posts written without sight of the rules (README: its recall is the honest one).
    # Do not tune rules on its rows: it would stop measuring anything.
    rows = load_rows(DEFAULT_FILE.parent / "scorer_blind.jsonl")
    evaluation = evaluate(rows, RuleScorer(), 0.7)

    assert evaluation.rows == 200
    assert evaluation.false_positive_rate(TARGET_BENIGN) <= FALSE_POSITIVE_TARGET


def test_it_prints_precision_and_recall_and_passes_the_check():
    out = StringIO()

    call_command("evaluate_scorer", "--check", stdout=out)

    report = out.getvalue()
    for name in [*ATTRIBUTES, "overall (escalate)"]:
        assert name in report
    assert "precision" in report
    assert "false-positive rate, neutral+idiom+counter_speech" in report
    assert "false-positive rate, all benign categories" in report
    assert report.rstrip().endswith("Targets met.")


@pytest.mark.parametrize("half", ["even", "odd"])
def test_it_evaluates_one_half_of_the_set(half):
    out = StringIO()

    call_command("evaluate_scorer", "--half", half, stdout=out)

    total = len(load_rows(DEFAULT_FILE))
    rows = len(load_rows(DEFAULT_FILE, half))
    assert abs(rows - total / 2) <= 1
    assert f"({rows} rows, {half} lines)" in out.getvalue()


def test_it_exits_non_zero_when_the_targets_are_missed():
    out = StringIO()

    with (
        override_settings(FACTCHECK_SCORER="tests.moderation.test_scorer_commands.SilentScorer"),
        pytest.raises(CommandError, match="misses its targets"),
    ):
        call_command("evaluate_scorer", "--check", stdout=out)

    assert "Targets missed: THREAT recall 0.000 < 0.90" in out.getvalue()


def test_it_takes_a_threshold_and_a_file(tmp_path):
    path = tmp_path / "set.jsonl"
    rows = [
        {"text": "I will kill you", "language": "en", "category": "threat", "labels": ["THREAT"]},
        {"text": "Nice day", "language": "en", "category": "neutral", "labels": []},
    ]
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n")
    out = StringIO()

    call_command("evaluate_scorer", "--file", str(path), "--threshold", "0.95", stdout=out)

    report = out.getvalue()
    assert "threshold 0.95" in report
    assert "THREAT recall 0.000" in report  # 0.9 is below a 0.95 threshold


def test_it_times_the_scorer_when_asked():
    out = StringIO()

    call_command("evaluate_scorer", "--repeat", "1", stdout=out, stderr=StringIO())

    assert "posts/s" in out.getvalue()
