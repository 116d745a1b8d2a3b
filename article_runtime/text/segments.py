"""ICU segmentation with Python-string offsets.

ICU's BreakIterator reports UTF-16 offsets, so we walk an ``icu.UnicodeString`` and slice it
there; the Python strings we hand back are always whole code points.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

import icu

TokenKind = Literal["none", "number", "letter", "kana", "ideo"]

_NFC = icu.Normalizer2.getNFCInstance()


def nfc(text: str) -> str:
    """NFC, never NFKC: compatibility folding changes meaning (x² -> x2).

    Most text already is NFC; the C-speed stdlib check spares ICU's string conversion then.
    """
    if unicodedata.is_normalized("NFC", text):
        return text
    return str(_NFC.normalize(text))


def normalize_space(text: str) -> str:
    """Collapse every run of Unicode whitespace into one space and trim the ends."""
    return " ".join(text.split())


@dataclass(frozen=True, slots=True)
class Token:
    text: str
    kind: TokenKind
    start: int  # offset in the Python string
    end: int


def _kind(status: int) -> TokenKind:
    if status < 100:
        return "none"
    if status < 200:
        return "number"
    if status < 300:
        return "letter"
    if status < 400:
        return "kana"
    return "ideo"


def _is_bmp(text: str) -> bool:
    """True when every character is one UTF-16 unit, so ICU offsets are Python offsets."""
    return text.isascii() or len(text.encode("utf-16-le")) == 2 * len(text)


def _py_offsets(text: str) -> list[int]:
    """Map each UTF-16 offset of ``text`` to its Python index (only needed past the BMP).

    Built from runs between astral characters, so text with few of them costs list copies,
    not a Python loop per character.
    """
    table: list[int] = []
    pos = 0
    for astral in _astral_positions(text):
        table.extend(range(pos, astral + 1))
        table.append(astral)  # the low surrogate belongs to the same character
        pos = astral + 1
    table.extend(range(pos, len(text) + 1))
    return table


_CHUNK = 4096


def _astral_positions(text: str) -> list[int]:
    """Indices of characters past U+FFFF; chunks without any are skipped at C speed."""
    found: list[int] = []
    for base in range(0, len(text), _CHUNK):
        chunk = text[base : base + _CHUNK]
        if max(chunk) > "\uffff":
            found.extend(base + i for i, ch in enumerate(chunk) if ch > "\uffff")
    return found


def segments(text: str, locale: str = "root") -> Iterator[tuple[int, int, int]]:
    """``(start, end, rule_status)`` of every ICU word-break segment, in Python offsets.

    The one walk every word-level reading shares; no Token objects, so whole-block passes
    (names, quotes, vocabulary) cost little per segment.
    """
    breaker = icu.BreakIterator.createWordInstance(icu.Locale(locale))  # ~8 µs; not shareable
    breaker.setText(icu.UnicodeString(text))
    offsets = None if _is_bmp(text) else _py_offsets(text)
    start16 = breaker.first()
    for end16 in breaker:
        if offsets is None:
            yield start16, end16, breaker.getRuleStatus()
        else:
            yield offsets[start16], offsets[end16], breaker.getRuleStatus()
        start16 = end16


def words(text: str, locale: str = "root") -> list[str]:
    """The word segments of ``text`` (letters, numbers, kana, ideographs), in order.

    The hot path of grounding and word counts: no Token objects, no offset table for
    BMP-only text.
    """
    breaker = icu.BreakIterator.createWordInstance(icu.Locale(locale))
    if _is_bmp(text):
        breaker.setText(text)
        out: list[str] = []
        start = breaker.first()
        for end in breaker:
            if breaker.getRuleStatus() >= 100:
                out.append(text[start:end])
            start = end
        return out
    return [t.text for t in word_tokens(text, locale) if t.kind != "none"]


def count_words(text: str, *, at_most: int, locale: str = "root") -> int:
    """Word segments in ``text``, counting no further than ``at_most`` (cheap minimum checks)."""
    breaker = icu.BreakIterator.createWordInstance(icu.Locale(locale))
    breaker.setText(text)
    count = 0
    breaker.first()
    for _ in breaker:
        if breaker.getRuleStatus() >= 100:
            count += 1
            if count >= at_most:
                break
    return count


def word_tokens(text: str, locale: str = "root", *, keep_spaces: bool = False) -> list[Token]:
    """Split ``text`` into ICU word-break segments with their rule kind.

    Whitespace segments are dropped unless ``keep_spaces``; punctuation and symbols are kept
    with kind ``none`` so callers can protect or compare them.
    """
    tokens: list[Token] = []
    for start, end, status in segments(text, locale):
        piece = text[start:end]
        if not keep_spaces and piece.isspace():
            continue
        tokens.append(Token(piece, _kind(status), start, end))
    return tokens


def graphemes(text: str) -> list[str]:
    """User-perceived characters: edit distances are counted in these, not code points."""
    breaker = icu.BreakIterator.createCharacterInstance(icu.Locale.getRoot())
    breaker.setText(icu.UnicodeString(text))
    offsets = None if _is_bmp(text) else _py_offsets(text)
    out: list[str] = []
    start16 = breaker.first()
    for end16 in breaker:
        if offsets is None:
            out.append(text[start16:end16])
        else:
            out.append(text[offsets[start16] : offsets[end16]])
        start16 = end16
    return out
