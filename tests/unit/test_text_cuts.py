"""Property tests: at a cut, ICU segments a text as two independent halves (``text.cuts``).

This is what lets a repair be judged on a window of its block, so the generators try hard to
break it: any Unicode character, and runs of the classes the word and grapheme rules treat
specially (letters joined by apostrophes, colons and periods, numbers with separators,
Extend/Format/ZWJ, regional indicators, emoji sequences, Hebrew quotes, Han, kana, Thai, Hangul).
"""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from article_runtime.text.cuts import cut_after, cut_before, is_cut
from article_runtime.text.segments import graphemes, segments

SETTINGS = settings(max_examples=400, deadline=None)

TRICKY = (
    "a",
    "Z",
    "é",
    "e\u0301",
    "'",
    "’",
    ":",
    ".",
    ",",
    ";",
    "_",
    "-",
    "1",
    "٣",
    "\u00a0",
    "\u202f",
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "\u2028",
    "\u200b",
    "\u200d",
    "\u00ad",
    "\u0301",
    "\U0001f1e7",
    "\U0001f1f7",
    "\U0001f468",
    "\U0001f3fd",
    "\u2764\ufe0f",
    "א",
    '"',
    "ש",
    "東",
    "京",
    "で",
    "カ",
    "ー",
    "ก",
    "ข",
    "한",
    "\u1100",
    "\u1161",
    "\u0915\u094d",
    "\u0e33",
    "。",
    "、",
    "«",
    "»",
    "“",
    "”",
    "(",
    ")",
    "$",
    "%",
    "+",
    "©",
    "#",
    "*",
    "\ufeff",
)

any_char = st.characters(exclude_categories=["Cs"])
# Letters of every script beside punctuation, symbols, spaces, marks and digits of every script.
by_class = st.one_of(
    st.characters(categories=["L"]),
    st.characters(categories=["P", "S", "Z", "Cc", "Cf"]),
    st.characters(categories=["M", "N"]),
)

texts = st.one_of(
    st.text(any_char, max_size=40),
    st.text(by_class, max_size=30),
    st.lists(st.sampled_from(TRICKY), max_size=40).map("".join),
    st.lists(st.one_of(st.sampled_from(TRICKY), by_class), max_size=40).map("".join),
)
LOCALES = st.sampled_from(["root", "en", "pt", "de", "ja", "th", "he"])


def _segments(text: str, locale: str) -> list[tuple[int, int, int]]:
    return list(segments(text, locale))


def _restricted(whole: list[tuple[int, int, int]], lo: int, hi: int) -> list[tuple[int, int, int]]:
    return [(s - lo, e - lo, status) for s, e, status in whole if lo <= s and e <= hi]


def _edges(text: str) -> set[int]:
    return set(itertools.accumulate((len(g) for g in graphemes(text)), initial=0))


@SETTINGS
@given(texts, LOCALES)
def test_the_text_between_two_cuts_segments_as_inside_the_whole(text: str, locale: str) -> None:
    cuts = [p for p in range(len(text) + 1) if is_cut(text, p)]
    whole = _segments(text, locale)
    whole_edges = _edges(text)
    for lo, hi in itertools.combinations(cuts, 2):
        window = text[lo:hi]
        assert _segments(window, locale) == _restricted(whole, lo, hi), (lo, hi)
        assert _edges(window) == {p - lo for p in whole_edges if lo <= p <= hi}, (lo, hi)


@SETTINGS
@given(texts, st.integers(0, 50), st.integers(0, 50))
def test_cut_search_finds_the_nearest_cut_within_reach(text: str, pos: int, within: int) -> None:
    before = cut_before(text, pos, within=within)
    after = cut_after(text, pos, within=within)
    pos = min(pos, len(text))  # past the end searches from the end
    reach_back = [p for p in range(max(pos - within, 0), pos + 1) if is_cut(text, p)]
    reach_on = [p for p in range(pos, min(pos + within, len(text)) + 1) if is_cut(text, p)]
    assert before == (max(reach_back) if reach_back else None)
    assert after == (min(reach_on) if reach_on else None)
