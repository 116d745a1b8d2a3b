"""Cuts: places where a text falls into two halves that ICU segments independently.

A cut lies after whitespace or punctuation and before a letter. At a cut, no word-break rule of
UAX #29 (ICU's ``word.txt``) joins the two sides or looks through them: the character before is
of class ``Other`` or a space or line break, which only the rules attaching Extend, Format and ZWJ
characters continue, and the letter after is none of those; a dictionary run (Thai, Han, kana)
ends at the punctuation. ICU moves forward from one boundary to the next, so the segments of
``text[lo:hi]`` between two cuts are exactly the segments of the whole text there. A grapheme
cluster breaks at a cut too (the letter is no Extend, ZWJ or SpacingMark), a letter ends every
sign-or-unit scan of a number (``numbers.number_affixes``) and every run of punctuation.

So a repair can be judged on the stretch between two cuts around it (``harness.repair_edit``).
"""

from __future__ import annotations

import functools
import unicodedata

import icu

from article_runtime.text.scripts import letter_scripts
from article_runtime.text.segments import graphemes, segments

__all__ = ["cut_after", "cut_before", "is_cut"]

_BEFORE_CLASSES = frozenset({"Other", "WSegSpace", "CR", "LF", "Newline"})
# Letters no word rule joins to punctuation (Han, Hiragana and others are ``Other``).
_LETTER_CLASSES = frozenset({"ALetter", "Hebrew_Letter", "Katakana", "Other"})
# Scripts ICU hands to its CJK dictionary as one run ($KanaKanji, Hangul syllables).
_DICTIONARY_SCRIPTS = frozenset({"Hani", "Hira", "Kana", "Hang"})
_GLUED_GRAPHEME = frozenset({"Extend", "ZWJ", "SpacingMark", "Prepend", "Regional_Indicator"})


def _value(ch: str, prop: int) -> str:
    """ICU's long name of ``ch``'s value of an enumerated property (Word_Break...)."""
    value = icu.Char.getIntPropertyValue(ch, prop)
    name = icu.Char.getPropertyValueName(prop, value, icu.UPropertyNameChoice.LONG_PROPERTY_NAME)
    return str(name)


def _splits(left: str, right: str) -> bool:
    """Whether ICU segments ``left + right`` as ``left`` and ``right`` apart: the same word
    segments with the same rule status, and the same grapheme clusters."""
    shifted = [(s + len(left), e + len(left), status) for s, e, status in segments(right)]
    if list(segments(left + right)) != [*segments(left), *shifted]:
        return False
    return graphemes(left + right) == graphemes(left) + graphemes(right)


# Neighbours a cut is tried against: Latin, digit, Han, Thai (dictionary), Hebrew, space.
_LEFT_PROBES = ("x", "1", "東", "ก", "א", " ")
_RIGHT_PROBES = ("x", "東", "ก", "カ", "한", "א")


@functools.cache
def _ends_a_side(ch: str) -> bool:
    """Whitespace, punctuation or a symbol that no word or grapheme rule joins to a letter.

    Read from Unicode properties, then tried on ICU itself: ICU tailors a few characters
    (``@`` joins an e-mail address, Kangxi radicals join Han).
    """
    category = unicodedata.category(ch)
    if category[0] in "LMN" or category in ("Cf", "Cs", "Cn", "Co"):
        return False
    if _value(ch, icu.UProperty.WORD_BREAK) not in _BEFORE_CLASSES:
        return False  # MidLetter, MidNum, quotes, ExtendNumLet (_) join letters or digits
    if _value(ch, icu.UProperty.LINE_BREAK) == "Complex_Context":
        return False  # part of a dictionary run (Thai, Myanmar...)
    if letter_scripts(ch) & _DICTIONARY_SCRIPTS:
        return False  # a Han radical or kana mark joins the Han and kana run around it
    if _value(ch, icu.UProperty.GRAPHEME_CLUSTER_BREAK) in _GLUED_GRAPHEME:
        return False
    return all(_splits(left + ch, right) for left in _LEFT_PROBES for right in _RIGHT_PROBES)


@functools.cache
def _starts_a_side(ch: str) -> bool:
    """A letter that starts its own word segment and grapheme cluster after a space or a mark."""
    if unicodedata.category(ch)[0] != "L":
        return False
    if _value(ch, icu.UProperty.WORD_BREAK) not in _LETTER_CLASSES:
        return False  # some modifier letters are Extend
    if _value(ch, icu.UProperty.GRAPHEME_CLUSTER_BREAK) in _GLUED_GRAPHEME:
        return False
    return all(_splits(f"x{left}", f"{ch}x") for left in (" ", "(", "\u3002", "\n", "$", "\u00a9"))


def is_cut(text: str, pos: int) -> bool:
    """Whether ``text`` falls into independent halves at ``pos`` (its ends always do)."""
    if pos <= 0 or pos >= len(text):
        return True
    return _ends_a_side(text[pos - 1]) and _starts_a_side(text[pos])


def cut_before(text: str, pos: int, *, within: int) -> int | None:
    """The last cut at or before ``pos``, looking back at most ``within`` characters."""
    pos = min(max(pos, 0), len(text))
    for candidate in range(pos, max(pos - within, 0) - 1, -1):
        if is_cut(text, candidate):
            return candidate
    return None


def cut_after(text: str, pos: int, *, within: int) -> int | None:
    """The first cut at or after ``pos``, looking ahead at most ``within`` characters."""
    pos = min(max(pos, 0), len(text))
    for candidate in range(pos, min(pos + within, len(text)) + 1):
        if is_cut(text, candidate):
            return candidate
    return None
