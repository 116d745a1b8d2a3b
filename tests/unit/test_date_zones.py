"""A declared date keeps the instant the page wrote, or only its date: never another instant.

Three classes found in pages' date strings, each generated here rather than listed:
- an offset after a UTC name (``GMT-0500``, as JavaScript's ``Date.toString`` writes, ``UTC+3``),
  which dateutil alone reads the POSIX way, with the sign turned;
- a zone given only by name (``EST``, ``IST``), whose offset needs a table of names: the time
  is dropped, not kept without its zone (and dateutil's warning no longer escapes);
- a year written first (``2026-12-01 10:00 UTC``), which is year-month-day wherever it is read
  and was refused as if day and month could swap.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta, timezone

import pytest
from dateutil import parser as dateutil_parser  # type: ignore[import-untyped]
from hypothesis import given
from hypothesis import strategies as st

from article_runtime.candidates.dates import normalize_date

DAYS = st.dates(min_value=date(1900, 1, 1), max_value=date(2100, 12, 31))
TIMES = st.times().map(lambda t: t.replace(second=0, microsecond=0))
# Offsets in use: -12:00 to +14:00, in whole minutes.
OFFSETS = st.integers(min_value=-12 * 60, max_value=14 * 60).map(lambda m: timedelta(minutes=m))


def _written(offset: timedelta, *, colon: bool) -> str:
    sign = "-" if offset < timedelta(0) else "+"
    hours, minutes = divmod(abs(offset) // timedelta(minutes=1), 60)
    return f"{sign}{hours:02}{':' if colon else ''}{minutes:02}"


FORMATS = (
    lambda m, z: f"{m:%a, %d %b %Y %H:%M:%S} {z(colon=False)}",  # RFC 2822
    lambda m, z: f"{m:%a %b %d %Y %H:%M:%S} GMT{z(colon=False)}",  # Date.toString
    lambda m, z: f"{m:%B} {m.day}, {m.year} {m:%H:%M} UTC{z(colon=True)}",
    lambda m, z: f"{m:%d %B %Y %H:%M} GMT {z(colon=False)}",
    lambda m, z: f"{m:%Y-%m-%d %H:%M} UTC {z(colon=True)}",
)


@given(DAYS, TIMES, OFFSETS, st.sampled_from(FORMATS))
def test_an_offset_is_kept_as_written(day: date, at: time, offset: timedelta, form: object) -> None:
    moment = datetime.combine(day, at, tzinfo=timezone(offset))
    text = form(moment, lambda colon: _written(offset, colon=colon))  # type: ignore[operator]
    assert normalize_date(text) == moment.isoformat()


_INFO = dateutil_parser.parserinfo()


def _means_something_else(name: str) -> bool:
    """A word dateutil reads as a month, weekday, AM/PM, unit or filler, as UTC, or as a
    number (``INF``, ``NAN``: Python's float reads them)."""
    lookups = (_INFO.jump, _INFO.weekday, _INFO.month, _INFO.hms, _INFO.ampm, _INFO.pertain)
    # ``is not``: a lookup answers 0 for AM, Monday or hours, and ``0 in (None, False)``.
    if _INFO.utczone(name) or any(
        look(name) is not None and look(name) is not False for look in lookups
    ):
        return True
    try:
        float(name)
    except ValueError:
        return False
    return True


ZONE_NAMES = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=2, max_size=5).filter(
    lambda name: not _means_something_else(name)
)


@given(DAYS, TIMES, ZONE_NAMES)
def test_a_zone_given_by_name_keeps_the_date_alone(day: date, at: time, zone: str) -> None:
    for text in (f"{day:%B} {day.day}, {day.year} {at:%H:%M} {zone}", f"{day} {at:%H:%M} {zone}"):
        assert normalize_date(text) == day.isoformat(), text


@given(DAYS, TIMES, st.sampled_from(["-", "/"]))
def test_a_year_written_first_is_year_month_day(day: date, at: time, separator: str) -> None:
    written = f"{day:%Y}{separator}{day:%m}{separator}{day:%d}"
    assert normalize_date(f"{written} {at:%H:%M} UTC") == datetime.combine(
        day, at, tzinfo=UTC
    ).isoformat().replace("Z", "+00:00")
    assert normalize_date(written) == day.isoformat()


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Tue Dec 01 2026 10:00:00 GMT-0500", "2026-12-01T10:00:00-05:00"),
        ("Dec 1, 2026 10:00 UTC+3", "2026-12-01T10:00:00+03:00"),
        ("1 Dec 2026 10:00 GMT+05:30", "2026-12-01T10:00:00+05:30"),
        ("Dec 1, 2026 10:00 EST", "2026-12-01"),
        ("1 December 2026 23:30 IST", "2026-12-01"),
        ("2026-12-01 10:00 UTC", "2026-12-01T10:00:00+00:00"),
        ("Tue, 01 Dec 2026 10:00:00 GMT", "2026-12-01T10:00:00+00:00"),
        ("04/09/2025", None),  # April or September: still the reader's locale
        ("Dec 1, 2026 10:00", "2026-12-01T10:00:00"),  # no zone written: none added
    ],
)
def test_dates_pages_write(raw: str, expected: str | None) -> None:
    assert normalize_date(raw) == expected
