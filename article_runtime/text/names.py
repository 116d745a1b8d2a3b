"""Proper-name heuristic without word lists (spec 7.1: never alter names).

A letter token is a name when it carries a capital that sentence position does not explain:
an initial capital away from an ICU sentence start, an inner capital anywhere (NASA, McDonald),
or the same word written that way elsewhere in the text (so ``joão`` is protected when the text
also says ``João``). Scripts without case get no name protection from here.

Whether a word is a name depends on the whole text, but only through its key: a letter token is
a name exactly when its ``word_key`` is one of ``name_keys(text)``, read once per text.
"""

from __future__ import annotations

from article_runtime.text.segments import graphemes, nfc, segments
from article_runtime.text.sentences import sentence_bounds

_LETTER = range(200, 300)  # ICU word rule status of letter segments (kana and ideographs: none)


def word_key(text: str) -> str:
    """Case-folded NFC: how the article's own vocabulary is looked up."""
    return nfc(text).casefold()


def has_upper(text: str) -> bool:
    return not text.islower() and any(ch.isupper() for ch in text)


def inner_upper(text: str) -> bool:
    """A capital after the first grapheme (NASA, McDonald, iPhone)."""
    if not has_upper(text[1:]):
        return False  # the text after the first grapheme is part of text[1:]
    if text[:2].isascii():
        return True  # two ASCII letters are two graphemes
    return has_upper("".join(graphemes(text)[1:]))


def name_keys(text: str, locale: str = "root") -> frozenset[str]:
    """The keys of the words ``text`` treats as names: capitalized away from a sentence start
    or inside (one pass over ICU's word and sentence segments)."""
    bounds = sentence_bounds(text, locale)
    keys: set[str] = set()
    next_bound = 0
    for start, end, status in segments(text, locale):
        if status < 100:
            continue  # spaces and punctuation are no words
        initial = False  # a sentence starts between the previous word and this one
        while next_bound < len(bounds) and bounds[next_bound] <= start:
            initial = True
            next_bound += 1
        if status not in _LETTER:
            continue
        piece = text[start:end]
        if has_upper(piece) and (not initial or inner_upper(piece)):
            keys.add(word_key(piece))
    return frozenset(keys)
