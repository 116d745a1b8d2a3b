"""Block text without invisible debris: soft hyphens and zero-width spaces go, join controls
(which shape Persian, Indic and emoji text) stay."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from article_runtime.candidates.textbuf import TextBuffer
from article_runtime.text.chars import without_invisible_junk

# written out by hand, independently of ICU's properties the code reads
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
def test_a_block_reads_as_its_visible_words(pieces: list[str]) -> None:
    buf = TextBuffer()
    for piece in pieces:
        buf.add(piece)
    text, _ = buf.take()
    visible = "".join(ch for ch in "".join(pieces) if ch not in DEBRIS)
    assert text == " ".join(visible.split())


def test_a_hyphenated_word_is_one_word() -> None:
    buf = TextBuffer()
    buf.add("Mit\u00adtel\u00adal\u00adter ")
    buf.add("\u200b")
    buf.add("war")
    assert buf.take()[0] == "Mittelalter war"
