"""Invisible debris in comparisons: soft hyphens and zero-width spaces count for nothing when a
block is matched with trafilatura's output (which has none); join controls, which shape
Persian, Indic and emoji text, still count."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from article_runtime.candidates.extractors import fold, trafilatura_selection
from article_runtime.candidates.segment import RawBlock
from article_runtime.text.chars import without_invisible_junk

# written out by hand, independently of the ICU properties the code reads
DEBRIS = "\u00ad\u200b\u2060\ufeff\u200e"  # soft hyphen, ZWSP, word joiner, BOM, LRM
KEPT = "\u200c\u200d"  # ZWNJ, ZWJ
VISIBLE = st.text(alphabet=st.characters(categories=("L", "N", "P")), max_size=8)
PIECES = st.lists(st.one_of(VISIBLE, st.sampled_from(list(DEBRIS + KEPT + " \n"))), max_size=20)


@given(PIECES)
def test_only_the_debris_goes(pieces: list[str]) -> None:
    text = "".join(pieces)
    expected = "".join(ch for ch in text if ch not in DEBRIS)
    assert without_invisible_junk(text) == expected


@given(PIECES)
def test_debris_never_changes_a_comparison(pieces: list[str]) -> None:
    text = "".join(pieces)
    visible = "".join(ch for ch in text if ch not in DEBRIS)
    assert fold(text) == fold(visible)


def test_a_hyphenated_paragraph_matches_trafilatura_s_line() -> None:
    text = "Schon im Mit\u00adtel\u00adal\u00adter war der St. Mag\u00adda\u00adle\u00adner da."
    block = RawBlock(0, "paragraph", text, 1, False, None)
    line = "Schon im Mittelalter war der St. Magdalener da."
    assert trafilatura_selection([block], line) == {0}
    # a join control is a character of the word: no match without it
    persian = RawBlock(1, "paragraph", "می\u200cخواهم این کتاب را بخوانم امروز", 1, False, None)
    assert trafilatura_selection([persian], "میخواهم این کتاب را بخوانم امروز") == set()
