"""Small server-side pictures and times for the review pages. Everything is built with
format_html, so nothing a post carries can reach the markup unescaped."""

from datetime import datetime

from django import template
from django.contrib.humanize.templatetags.humanize import naturaltime
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html

register = template.Library()


def _points(values: list[float], width: float, height: float, pad: float = 1.5) -> str:
    low, high = min(values), max(values)
    span = (high - low) or 1
    step = (width - 2 * pad) / max(len(values) - 1, 1)
    return " ".join(
        f"{pad + i * step:.1f},{height - pad - (value - low) / span * (height - 2 * pad):.1f}"
        for i, value in enumerate(values)
    )


@register.simple_tag
def sparkline(values, width=96, height=24):
    """Shares over the last snapshots as a tiny line; its label carries the numbers."""
    values = list(values or [])
    if len(values) < 2:
        return format_html('<span class="muted">{}</span>', "not enough data")
    label = f"Shares over the last {len(values)} observations: {values[0]:,} to {values[-1]:,}"
    return format_html(
        '<svg class="sparkline" width="{}" height="{}" viewBox="0 0 {} {}" role="img" '
        'aria-label="{}"><title>{}</title><polyline points="{}"/></svg>',
        width,
        height,
        width,
        height,
        label,
        label,
        _points(values, width, height),
    )


@register.simple_tag
def engagement_chart(snapshots, width=560, height=160):
    """Shares and views over time, each scaled to the chart's height (their sizes differ by
    orders of magnitude); the page carries the numbers in a table beside it."""
    snapshots = list(snapshots or [])
    if len(snapshots) < 2:
        return format_html('<p class="muted">{}</p>', "Only one observation so far: no chart yet.")
    first, last = snapshots[0], snapshots[-1]
    label = (
        f"Engagement from {date_format(timezone.localtime(first.observed_at), 'DATETIME_FORMAT')}"
        f" to {date_format(timezone.localtime(last.observed_at), 'DATETIME_FORMAT')}: shares "
        f"{first.shares:,} to {last.shares:,}, views {first.views:,} to {last.views:,}."
    )
    return format_html(
        '<svg class="chart" width="100%" height="{}" viewBox="0 0 {} {}" '
        'preserveAspectRatio="none" role="img" aria-label="{}"><title>{}</title>'
        '<polyline class="series-views" points="{}"/>'
        '<polyline class="series-shares" points="{}"/></svg>',
        height,
        width,
        height,
        label,
        label,
        _points([s.views for s in snapshots], width, height, pad=4),
        _points([s.shares for s in snapshots], width, height, pad=4),
    )


@register.simple_tag
def reltime(value: datetime | None):
    """``3 hours ago`` with the exact time in ``datetime`` and on hover."""
    if value is None:
        return ""
    local = timezone.localtime(value)
    return format_html(
        '<time datetime="{}" title="{}">{}</time>',
        value.isoformat(),
        f"{date_format(local, 'DATETIME_FORMAT')} {local.tzname()}",
        naturaltime(value),
    )


@register.simple_tag
def time_left(expires_at: datetime | None):
    """``12 min left`` (or ``expired``), with the expiry time in ``datetime`` and on hover."""
    if expires_at is None:
        return ""
    seconds = int((expires_at - timezone.now()).total_seconds())
    if seconds <= 0:
        text = "expired"
    elif seconds < 60:
        text = "less than a minute left"
    else:
        text = f"{seconds // 60} min left"
    return format_html(
        '<time datetime="{}" title="Expires {}">{}</time>',
        expires_at.isoformat(),
        f"{date_format(timezone.localtime(expires_at), 'DATETIME_FORMAT')}",
        text,
    )


@register.filter
def excerpt(text: str, length: int = 160) -> str:
    """The start of a post's text on one line (escaped later by autoescape, as always)."""
    flat = " ".join((text or "").split())
    return flat if len(flat) <= length else flat[: length - 1].rstrip() + "…"
