import io
import json
import sys

from django.conf import settings
from django.core.management.base import BaseCommand

from factcheck.moderation.scorer import get_scorer


class Command(BaseCommand):
    help = (
        "Score one text per line of standard input with the configured scorer and write one "
        "JSON object per line: version, scores and spans by attribute, and whether the text "
        "escalates at FACTCHECK_ESCALATION_THRESHOLD."
    )
    # Tests pass their own stream: call_command("score_text", stdin=StringIO(...)).
    stealth_options = ("stdin",)

    def add_arguments(self, parser):
        parser.add_argument("--language", default="en", help="Language of every line (en, es…).")

    def handle(self, *args, language="en", **options):
        stdin = options.get("stdin")
        if stdin is None:
            # Posts are hostile input: undecodable bytes become U+FFFD instead of stopping the
            # run, and only "\n" ends a line (a text may hold "\r" or U+2028).
            stdin = io.TextIOWrapper(
                sys.stdin.buffer, encoding="utf-8", errors="replace", newline="\n"
            )
        scorer = get_scorer()
        threshold = settings.FACTCHECK_ESCALATION_THRESHOLD
        for line in stdin:
            text = line[:-1] if line.endswith("\n") else line
            text = text[:-1] if text.endswith("\r") else text
            result = scorer.score(text, language)
            output = result.to_json()
            output["tier"] = result.tier(threshold)
            output["escalate"] = result.escalates(threshold)
            self.stdout.write(json.dumps(output))
