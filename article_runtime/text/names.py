"""Proper-name heuristic without word lists (spec 7.1: never alter names).

A letter token is a name when it carries a capital that sentence position does not explain:
an initial capital away from an ICU sentence start, an inner capital anywhere (NASA, McDonald),
or the same word written that way elsewhere in the text (so ``joão`` is protected when the text
also says ``João``). Scripts without case get no name protection from here.
"""

from __future__ import annotations

from collections.abc import Sequence

from article_runtime.text.segments import Token, graphemes, nfc
from article_runtime.text.sentences import sentence_bounds


def word_key(text: str) -> str:
    """Case-folded NFC: how the article's own vocabulary is looked up."""
    return nfc(text).casefold()


def has_upper(text: str) -> bool:
    return any(ch.isupper() for ch in text)


def inner_upper(text: str) -> bool:
    """A capital after the first grapheme (NASA, McDonald, iPhone)."""
    return has_upper("".join(graphemes(text)[1:]))


def sentence_initial(tokens: Sequence[Token], text: str, locale: str = "root") -> set[int]:
    """Starts of the first word token (letter, number, kana, ideo) of every sentence."""
    starts = sentence_bounds(text, locale)
    initial: set[int] = set()
    words = [token for token in tokens if token.kind != "none"]
    index = 0
    for start in starts:
        while index < len(words) and words[index].start < start:
            index += 1
        if index < len(words):
            initial.add(words[index].start)
    return initial


def name_starts(tokens: Sequence[Token], text: str, locale: str = "root") -> set[int]:
    """Start offsets of the letter tokens the heuristic treats as proper names."""
    initial = sentence_initial(tokens, text, locale)
    letters = [token for token in tokens if token.kind == "letter"]
    names = {
        token.start
        for token in letters
        if inner_upper(token.text) or (has_upper(token.text) and token.start not in initial)
    }
    capitalized = {word_key(token.text) for token in letters if token.start in names}
    names.update(token.start for token in letters if word_key(token.text) in capitalized)
    return names
