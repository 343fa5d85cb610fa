"""Validation of an ingest batch item by item, in plain Python.

A DRF serializer per item costs tens of microseconds more per post than these checks (measured
by the ingest benchmark, figure "validate 1,000 posts"), and validation would then dominate a
batch, so the API serializers in ``factcheck.api.posts`` only document the shape for OpenAPI.

Checks here need no database; the ones against stored snapshots (counts going backwards) are in
``services.posts_ingest``. Every error is collected, none stops the others.
"""

import functools
import re
from dataclasses import dataclass
from datetime import datetime, timedelta

# Counts of a snapshot, in this order wherever a tuple of counts appears.
COUNT_FIELDS = ("shares", "views", "comments", "reactions", "reports_hate", "reports_violence")
REQUIRED_COUNTS = frozenset({"shares", "views"})
MAX_COUNT = 2**63 - 1  # a PostgreSQL bigint

ID_PATTERN = re.compile(r"[A-Za-z0-9_.:\-]{1,128}", re.ASCII)
ID_RULE = "1 to 128 characters of letters, digits, '_', '.', ':' or '-'"
# A BCP 47 tag reduced to what platforms send: a primary ISO 639-1 subtag, then optional
# script ("Hant"), region ("BR", "419") or variant subtags.
LANGUAGE_PATTERN = re.compile(r"([A-Za-z]{2})((?:-[A-Za-z0-9]{2,8})*)", re.ASCII)

# A scheme, a host, then anything but whitespace and control characters.
URL_PATTERN = re.compile(r"https?://[^/?#\s\x00-\x1f\x7f]+[^\s\x00-\x1f\x7f]*", re.IGNORECASE)

_ISO_639_1_CODES = """
    aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv
    cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr
    ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw
    ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv
    ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr
    ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi
    yo za zh zu
"""
_ISO_3166_1_CODES = """
    AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ
    BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM
    DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS
    GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN
    KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ
    MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM
    PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV
    SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI
    VN VU WF WS YE YT ZA ZM ZW
"""
ISO_639_1 = frozenset(_ISO_639_1_CODES.split())
ISO_3166_1_ALPHA_2 = frozenset(_ISO_3166_1_CODES.split())
# Kosovo has no ISO code yet; XK is the user-assigned code platforms and the EU use for it.
COUNTRIES = ISO_3166_1_ALPHA_2 | {"XK"}

MAX_AUTHOR_NAME = 300
MAX_URL = 2000
REQUIRED = "This field is required."


@dataclass(frozen=True, slots=True)
class ItemError:
    index: int
    field: str  # a dotted path into the item, e.g. "metrics.shares"; "" for the item itself
    message: str

    def as_dict(self) -> dict:
        return {"index": self.index, "field": self.field, "message": self.message}


@dataclass(slots=True)
class PostItem:
    """One valid item of a batch, normalised."""

    index: int
    external_id: str
    author_external_id: str
    author_name: str
    url: str
    text: str
    language: str  # the primary subtag, "pt"
    language_tag: str  # the whole tag, normalised: "pt-BR"
    country: str
    published_at: datetime
    observed_at: datetime
    counts: tuple[int, ...]  # in COUNT_FIELDS order


def _string_problem(value: str) -> str | None:
    # PostgreSQL refuses NUL in text and lone surrogates cannot be encoded: both would
    # otherwise surface as a server error instead of this item's 400.
    if "\x00" in value:
        return "Must not contain NUL bytes (\\u0000)."
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return "Must not contain unpaired surrogate code points."
    return None


def _datetime(value, field: str, index: int, errors: list[ItemError]) -> datetime | None:
    if value is None:
        errors.append(ItemError(index, field, REQUIRED))
        return None
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            parsed = None
        if parsed is not None and not 1970 <= parsed.year <= 9000:
            errors.append(ItemError(index, field, "Is out of range (years 1970 to 9000)."))
            return None
        if parsed is not None and parsed.tzinfo is not None:
            return parsed
        if parsed is not None:
            errors.append(ItemError(index, field, "Needs a time zone, e.g. 2025-05-01T12:00:00Z."))
            return None
    errors.append(
        ItemError(
            index,
            field,
            "Must be an ISO 8601 date-time with a time zone, e.g. 2025-05-01T12:00:00Z.",
        )
    )
    return None


def _external_id(value, field: str, index: int, errors: list[ItemError]) -> str | None:
    if value is None:
        errors.append(ItemError(index, field, REQUIRED))
    elif isinstance(value, str) and ID_PATTERN.fullmatch(value):
        return value
    else:
        errors.append(ItemError(index, field, f"Must be {ID_RULE}."))
    return None


def _language(value, index: int, errors: list[ItemError]) -> tuple[str, str] | None:
    if value is None or value == "":
        errors.append(ItemError(index, "language", REQUIRED))
        return None
    parsed = _parse_language(value) if isinstance(value, str) else None
    if parsed is None:
        shown = value[:40] if isinstance(value, str) else type(value).__name__
        errors.append(
            ItemError(
                index,
                "language",
                f"Unknown language code {shown!r}: use an ISO 639-1 code, optionally "
                "with a region, e.g. 'en' or 'pt-BR'.",
            )
        )
    return parsed


@functools.lru_cache(maxsize=1024)  # a batch repeats a handful of tags a thousand times
def _parse_language(value: str) -> tuple[str, str] | None:
    """(primary subtag, normalised tag), or None for an unknown code."""
    match = LANGUAGE_PATTERN.fullmatch(value) if len(value) <= 35 else None
    primary = match.group(1).lower() if match else None
    if primary not in ISO_639_1:
        return None
    tag = primary
    for subtag in match.group(2).split("-")[1:]:
        # BCP 47 case conventions: regions upper case, scripts title case, the rest lower.
        if len(subtag) == 2 and subtag.isalpha():
            tag += "-" + subtag.upper()
        elif len(subtag) == 4 and subtag.isalpha():
            tag += "-" + subtag.title()
        else:
            tag += "-" + subtag.lower()
    return primary, tag


def _country(value, index: int, errors: list[ItemError]) -> str | None:
    if value is None or value == "":
        return ""
    if isinstance(value, str) and value.upper() in COUNTRIES:
        return value.upper()
    shown = value[:40] if isinstance(value, str) else type(value).__name__
    errors.append(
        ItemError(
            index,
            "country",
            f"Unknown country code {shown!r}: use an ISO 3166-1 alpha-2 code, e.g. 'US'.",
        )
    )
    return None


def _url(value, index: int, errors: list[ItemError]) -> str | None:
    if value is None or value == "":
        return ""
    # Only http(s) with a host: the URL becomes a link in the review page, and a javascript:
    # URL there would run in a fact-checker's browser.
    if (
        isinstance(value, str)
        and len(value) <= MAX_URL
        and URL_PATTERN.fullmatch(value)
        and not _string_problem(value)
    ):
        return value
    errors.append(
        ItemError(
            index, "url", f"Must be an http:// or https:// URL of at most {MAX_URL} characters."
        )
    )
    return None


def _counts(metrics: dict, index: int, errors: list[ItemError]) -> tuple[int, ...] | None:
    counts = []
    ok = True
    for name in COUNT_FIELDS:
        value = metrics.get(name)
        if value is None:
            if name in REQUIRED_COUNTS:
                errors.append(ItemError(index, f"metrics.{name}", REQUIRED))
                ok = False
            counts.append(0)
        # bool is an int subclass: true is not a count.
        elif type(value) is not int:
            errors.append(ItemError(index, f"metrics.{name}", "Must be a whole number."))
            ok = False
        elif value < 0:
            errors.append(ItemError(index, f"metrics.{name}", "Must not be negative."))
            ok = False
        elif value > MAX_COUNT:
            errors.append(ItemError(index, f"metrics.{name}", f"Must be at most {MAX_COUNT}."))
            ok = False
        else:
            counts.append(value)
    return tuple(counts) if ok else None


def validate_item(
    raw, index: int, *, now: datetime, clock_skew: timedelta, errors: list[ItemError]
) -> PostItem | None:
    """The normalised item, or None after appending its errors to ``errors``."""
    if not isinstance(raw, dict):
        errors.append(ItemError(index, "", "Each post must be a JSON object."))
        return None
    before = len(errors)
    external_id = _external_id(raw.get("id"), "id", index, errors)

    author = raw.get("author")
    author_id = author_name = None
    if isinstance(author, dict):
        author_id = _external_id(author.get("id"), "author.id", index, errors)
        author_name = author.get("name")
        if author_name is None:
            author_name = ""
        elif not isinstance(author_name, str) or len(author_name) > MAX_AUTHOR_NAME:
            errors.append(
                ItemError(
                    index,
                    "author.name",
                    f"Must be a string of at most {MAX_AUTHOR_NAME} characters.",
                )
            )
        elif problem := _string_problem(author_name):
            errors.append(ItemError(index, "author.name", problem))
    elif author is None:
        errors.append(ItemError(index, "author", REQUIRED))
    else:
        errors.append(ItemError(index, "author", 'Must be an object: {"id": "…", "name": "…"}.'))

    text = raw.get("text")
    if text is None:
        errors.append(ItemError(index, "text", REQUIRED))
    elif not isinstance(text, str):
        errors.append(ItemError(index, "text", "Must be a string."))
    elif problem := _string_problem(text):
        errors.append(ItemError(index, "text", problem))

    url = _url(raw.get("url"), index, errors)
    language = _language(raw.get("language"), index, errors)
    country = _country(raw.get("country"), index, errors)

    published_at = _datetime(raw.get("published_at"), "published_at", index, errors)
    latest_allowed = now + clock_skew
    if published_at is not None and published_at > latest_allowed:
        errors.append(ItemError(index, "published_at", _future_message(clock_skew)))
        published_at = None  # nothing else to compare with it

    metrics = raw.get("metrics")
    observed_at = counts = None
    if isinstance(metrics, dict):
        observed_at = _datetime(metrics.get("observed_at"), "metrics.observed_at", index, errors)
        if observed_at is not None:
            if observed_at > latest_allowed:
                errors.append(ItemError(index, "metrics.observed_at", _future_message(clock_skew)))
            elif published_at is not None and observed_at < published_at - clock_skew:
                errors.append(
                    ItemError(index, "metrics.observed_at", "Must not be before published_at.")
                )
        counts = _counts(metrics, index, errors)
    elif metrics is None:
        errors.append(ItemError(index, "metrics", REQUIRED))
    else:
        errors.append(ItemError(index, "metrics", "Must be an object of counts and observed_at."))

    if len(errors) > before:
        return None
    return PostItem(
        index=index,
        external_id=external_id,
        author_external_id=author_id,
        author_name=author_name,
        url=url,
        text=text,
        language=language[0],
        language_tag=language[1],
        country=country,
        published_at=published_at,
        observed_at=observed_at,
        counts=counts,
    )


def _future_message(clock_skew: timedelta) -> str:
    return (
        "Is in the future: at most "
        f"{int(clock_skew.total_seconds())} seconds ahead of the server clock are allowed."
    )


def validate_items(
    raws: list, *, now: datetime, clock_skew: timedelta
) -> tuple[list[PostItem], list[ItemError]]:
    """The valid items and the errors of the invalid ones (every error, in index order)."""
    errors: list[ItemError] = []
    items = []
    for index, raw in enumerate(raws):
        item = validate_item(raw, index, now=now, clock_skew=clock_skew, errors=errors)
        if item is not None:
            items.append(item)
    return items, errors
