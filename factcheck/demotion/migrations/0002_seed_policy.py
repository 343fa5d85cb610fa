"""Seed DESIGN §4's default policy and the change-feed counter row."""

from django.db import migrations
from django.db.models import F

DEFAULTS = [
    # verdict, multiplier, label shown, strike for the author
    ("false", 0.2, True, True),
    ("altered", 0.2, True, True),
    ("partly_false", 0.5, True, False),
    ("missing_context", 1.0, True, False),
    ("satire", 1.0, True, False),
    ("true", 1.0, False, False),
    ("not_eligible", 1.0, False, False),
]


def seed(apps, schema_editor):
    DemotionPolicy = apps.get_model("demotion", "DemotionPolicy")
    DemotionSequence = apps.get_model("demotion", "DemotionSequence")
    for verdict, multiplier, show_label, strike in DEFAULTS:
        DemotionPolicy.objects.get_or_create(
            verdict=verdict,
            defaults={"multiplier": multiplier, "show_label": show_label, "strike": strike},
        )
    # Nothing to re-apply for the seeded values.
    DemotionPolicy.objects.filter(propagated_at__isnull=True).update(propagated_at=F("updated_at"))
    DemotionSequence.objects.get_or_create(pk=1, defaults={"last": 0})


class Migration(migrations.Migration):
    dependencies = [("demotion", "0001_initial")]

    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
