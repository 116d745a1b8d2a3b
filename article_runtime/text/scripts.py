"""Writing systems of text, from Unicode properties through ICU (no per-language lists).

``letter_scripts`` tells which scripts a text's letters use (Common and Inherited characters,
such as digits, punctuation and combining marks, belong to none). ``is_unspaced`` flags words
from scripts written without spaces between words (Han, kana, Thai...): their ICU word
segments come from a dictionary and may cut a word differently out of context.
``is_single_script`` is UTS #39's test of a whole string; ``letters_single_script`` asks it of
a word's letters and marks alone, which is what "a letter of another script" means.
"""

from __future__ import annotations

import functools

import icu

_NEUTRAL_SCRIPTS = frozenset({icu.UScriptCode.COMMON, icu.UScriptCode.INHERITED})
# Line_Break classes of characters that sit between letters with no space: ideographic (ID),
# complex-context South-East Asian (SA), conditional Japanese starter (CJ, small kana).
_UNSPACED_LINE_BREAK = frozenset({"ID", "SA", "CJ"})
# General categories L* and M*: what a word is spelled with. Punctuation, symbols and digits
# carry a script too (Tai Tham's sign kaan, Devanagari digits) but are no letters of it.
_LETTERS_AND_MARKS = icu.UnicodeSet("[[:L:][:M:]]")


def letter_scripts(text: str) -> frozenset[str]:
    """ISO 15924 codes (``Latn``, ``Hani``, ``Kana``...) of the scripts ``text`` is written in."""
    scripts: set[str] = set()
    for ch in set(text):
        script = icu.Script.getScript(ch)
        if script.getScriptCode() not in _NEUTRAL_SCRIPTS:
            scripts.add(str(script.getShortName()))
    return frozenset(scripts)


def _line_break_class(ch: str) -> str:
    prop = icu.UProperty.LINE_BREAK
    value = icu.Char.getIntPropertyValue(ch, prop)
    return str(
        icu.Char.getPropertyValueName(prop, value, icu.UPropertyNameChoice.SHORT_PROPERTY_NAME)
    )


def is_unspaced(word: str) -> bool:
    """True when ``word`` has a character of a script written without word spaces."""
    return any(_line_break_class(ch) in _UNSPACED_LINE_BREAK for ch in word)


@functools.cache
def _single_script_checker() -> icu.SpoofChecker:
    checker = icu.SpoofChecker()
    checker.setChecks(icu.USpoofChecks.RESTRICTION_LEVEL)
    checker.setRestrictionLevel(icu.URestrictionLevel.SINGLE_SCRIPT_RESTRICTIVE)
    return checker


def is_single_script(word: str) -> bool:
    """UTS #39's single-script test (ICU's spoof checker): the scripts of every character share
    one, Common and Inherited agreeing with all and Han with kana or Hangul (Japanese, Korean).
    ``gоvernment`` with a Cyrillic ``о`` fails; ``食べる`` passes."""
    return int(_single_script_checker().check(word)) == 0


def letters_single_script(word: str) -> bool:
    """``is_single_script`` of ``word``'s letters and marks only (issue 35 section 2: "a letter of
    another script"). ICU's word rules join some marks of another script to a Latin word (a
    Tai Tham sentence terminal after ``tempo`` makes one word ``tempo᪨``): a punctuation mark,
    not a letter, so the word is still Latin; a Cyrillic ``о`` or a Devanagari vowel sign in it
    is not."""
    return is_single_script("".join(ch for ch in word if _LETTERS_AND_MARKS.contains(ch)))
