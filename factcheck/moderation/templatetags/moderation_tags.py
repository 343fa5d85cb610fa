"""Times and tiers for the moderation pages, built with format_html so nothing a post carries
reaches the markup unescaped."""

from datetime import datetime

from django import template
from django.contrib.humanize.templatetags.humanize import naturaltime
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html
from django.utils.timesince import timesince, timeuntil

from factcheck.moderation.models import Tier

register = template.Library()


def _absolute(value: datetime) -> str:
    local = timezone.localtime(value)
    return f"{date_format(local, 'DATETIME_FORMAT')} {local.tzname()}"


@register.simple_tag
def when(value: datetime | None):
    """``3 hours ago`` with the exact time in ``datetime`` and on hover."""
    if value is None:
        return ""
    return format_html(
        '<time datetime="{}" title="{}">{}</time>',
        value.isoformat(),
        _absolute(value),
        naturaltime(value),
    )


@register.simple_tag
def sla_countdown(due: datetime | None, is_open: bool = True):
    """Time left to decide, or how long overdue, in words (colour only repeats them)."""
    if due is None or not is_open:
        return ""
    now = timezone.now()
    if due <= now:
        return format_html(
            '<span class="status status-urgent"><time datetime="{}" title="Due {}">'
            "Overdue by {}</time></span>",
            due.isoformat(),
            _absolute(due),
            timesince(due, now, depth=1),
        )
    css = "status-high" if (due - now).total_seconds() < 3600 else "status-normal"
    return format_html(
        '<span class="status {}"><time datetime="{}" title="Due {}">Due in {}</time></span>',
        css,
        due.isoformat(),
        _absolute(due),
        timeuntil(due, now, depth=1),
    )


@register.simple_tag
def tier_badge(tier: int):
    tier = Tier(tier)
    return format_html('<span class="status status-{}">{}</span>', tier.code, tier.label)


@register.filter
def excerpt(text: str, length: int = 160) -> str:
    """The start of a post's text on one line (escaped later by autoescape, as always)."""
    flat = " ".join((text or "").split())
    return flat if len(flat) <= length else flat[: length - 1].rstrip() + "…"


@register.filter
def percent(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"
