"""Dates and image sizes as pages write them: never an exception (issue 9, section 4)."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from article_runtime.candidates.dates import normalize_date
from article_runtime.candidates.images import is_decorative

DATEISH = st.text(
    alphabet=st.sampled_from("0123456789-+:TZ ./,APMUTCGESTaprMonJanSep²٣"), max_size=40
)


@settings(max_examples=2000)
@given(DATEISH | st.text(max_size=40))
@example("2024-01-01T10:00:00+99:00")
@example("Mon, 01 Jan 2024 10:00:00 +9999")
@example("2024-01-01 10:00 UTC+25")
@example("9999-12-31T23:59:59-23:59")
def test_normalize_date_never_raises_and_keeps_real_offsets(raw: str) -> None:
    iso = normalize_date(raw)  # a warning fails the test too (pytest's filterwarnings)
    if iso is not None and "T" in iso and iso[-6] in "+-":
        hours = int(iso[-5:-3])
        assert hours <= 14


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("2024-01-01T10:00:00+99:00", None),
        ("2024-01-01T10:00:00+23:59", None),
        ("Tue, 04 Mar 2025 10:00:00 +9900", None),
        ("2024-01-01T10:00:00+14:00", "2024-01-01T10:00:00+14:00"),
        ("2024-01-01T10:00:00-12:00", "2024-01-01T10:00:00-12:00"),
    ],
)
def test_out_of_range_offsets_make_the_date_unknown(raw: str, expected: str | None) -> None:
    assert normalize_date(raw) == expected


@given(st.text(max_size=30), st.text(max_size=30))
@example("²²", "300")
@example("9" * 5000, "300")
@example("٣٠٠", "1")
def test_image_sizes_never_raise(width: str, height: str) -> None:
    is_decorative({"width": width, "height": height})


@pytest.mark.parametrize(
    ("width", "height", "decorative"),
    [("1", "1", True), ("16px", "16", True), ("²", "²", False), ("9" * 5000, "2", True),
     ("640", "480", False), ("0016", "0016", True)],
)  # fmt: skip
def test_image_sizes_read_like_browsers(width: str, height: str, decorative: bool) -> None:
    assert is_decorative({"width": width, "height": height}) is decorative
