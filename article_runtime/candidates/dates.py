"""Publication dates: parse what pages declare into ISO 8601, without inventing precision.

A zone stays when the page gives one; a date-only value stays ``YYYY-MM-DD``. A string that
lacks a year, month or day is refused rather than completed from today's date. A time whose
zone is only a name ("10:00 EST", "IST") keeps its date alone: a name's offset needs a table
of names, which differ by country (IST is India's, Ireland's or Israel's), and a time without
its zone would read as another instant.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta

import htmldate
from dateutil import parser as dateutil_parser  # type: ignore[import-untyped]
from dateutil import tz

__all__ = ["date_from_html", "normalize_date"]

_MAX_LEN = 64  # a date string longer than this is prose, not a date
_MIN_YEAR = 1900
_MAX_YEAR = 2100
# UTC offsets in use run from -12:00 to +14:00; a zone beyond this is no real zone, and past
# ±24 h ``datetime`` refuses to print it at all.
_MAX_OFFSET = timedelta(hours=14)

# Two distinct defaults: a component that differs between both parses was absent from the text.
_DEFAULT_A = datetime(1904, 1, 1, 0, 0, 0, 0)
_DEFAULT_B = datetime(1908, 2, 2, 1, 1, 1, 1)


def normalize_date(value: str) -> str | None:
    """ISO 8601 for a declared date, or None when it is not a complete calendar date."""
    value = value.strip()
    if not value or len(value) > _MAX_LEN:
        return None
    try:
        day = date.fromisoformat(value)  # date only: no time was given, none is added
        return _checked(day.isoformat(), day.year)
    except ValueError:
        pass
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return _loose(value)
    return _moment(moment)


class _NamedZone(Exception):
    """The text names its zone without an offset."""


def _zone(name: str | None, offset: int | None) -> tz.tzoffset | None:
    """dateutil's zone for what the text says: an offset as given (UTC and GMT are offset 0
    in dateutil's own table), none when it says none, never one looked up by name. This
    replaces dateutil's fallback, which takes a name from the machine's own zone settings or
    drops it with a warning."""
    if offset is not None:
        return tz.UTC if offset == 0 else tz.tzoffset(None, offset)
    if name:
        raise _NamedZone(name)
    return None


_INFO = dateutil_parser.parserinfo()


def _offsets_as_written(value: str) -> str:
    """``value`` with the UTC name dropped before a signed offset (``GMT-0500``, ``UTC +3``).

    dateutil reads ``GMT+3`` the POSIX ``TZ`` way, as three hours *behind* UTC; pages mean
    the offset written (JavaScript's ``Date.toString`` writes ``GMT-0500`` for New York).
    Without the name, dateutil reads the offset as written.
    """
    words = value.split()
    kept = []
    for n, word in enumerate(words):
        signs = [at for at in (word.find("+"), word.find("-")) if at > 0]
        at = min(signs, default=0)
        if at and _INFO.utczone(word[:at]) and word[at + 1 : at + 2].isdigit():
            word = word[at:]  # GMT-0500 -> -0500
        elif _INFO.utczone(word) and n + 1 < len(words) and words[n + 1][:1] in ("+", "-"):
            continue  # GMT -0500 -> -0500
        kept.append(word)
    return " ".join(kept)


def _loose(value: str) -> str | None:
    """RFC 2822, "September 4, 2025" and kin, via dateutil's own tables (none of ours)."""
    value = _offsets_as_written(value)
    try:
        return _parsed(value)
    except _NamedZone:
        return _parsed(value, date_only=True)


def _parsed(value: str, *, date_only: bool = False) -> str | None:
    """``value`` read three ways; ``date_only``: its zone and time left unread."""
    zones = {"ignoretz": date_only, "tzinfos": _zone}
    try:
        first = dateutil_parser.parse(value, default=_DEFAULT_A, **zones)
        second = dateutil_parser.parse(value, default=_DEFAULT_B, **zones)
        dayfirst = dateutil_parser.parse(value, default=_DEFAULT_A, dayfirst=True, **zones)
    except (ValueError, OverflowError, TypeError):
        return None
    if (first.year, first.month, first.day) != (second.year, second.month, second.day):
        return None  # a component is missing
    # 04/09/2025: April or September depends on the reader's locale. A year written first
    # is ISO 8601's order, year-month-day, wherever it is read.
    if first != dayfirst and not value.startswith(str(first.year)):
        return None
    if date_only or (first.hour, first.minute) != (second.hour, second.minute):
        return _checked(first.date().isoformat(), first.year)
    return _moment(first)


def _moment(moment: datetime) -> str | None:
    """ISO 8601 of a date and time; None when its zone is no real UTC offset.

    ``utcoffset`` itself raises for a zone of 24 hours or more (dateutil builds one from
    ``+99:00`` without complaint), so it is asked inside the guard.
    """
    try:
        offset = moment.utcoffset()
        iso = moment.isoformat()
    except (ValueError, OverflowError):
        return None
    if offset is not None and abs(offset) > _MAX_OFFSET:
        return None
    return _checked(iso, moment.year)


def _checked(iso: str, year: int) -> str | None:
    return iso if _MIN_YEAR <= year <= _MAX_YEAR else None


def date_from_html(html: str, url: str | None) -> str | None:
    """htmldate's quick search (URL, meta and visible date markup), as a last resort.

    ``extensive_search`` stays off: on WCXB it found 30 more true dates but also 68 dates on
    pages that have none, and its p95 cost rose from 33 to 147 ms.
    """
    if not html.strip():
        return None
    try:
        found = htmldate.find_date(html, extensive_search=False, original_date=True, url=url)
    except Exception:  # a heuristic library's failure must not cost the article its metadata
        return None
    return normalize_date(found) if isinstance(found, str) else None
