"""Whether a string is a word of a language: wordfreq's maintained multilingual word lists.

A repair may turn a string that is no word of the article's language into one that is, never one
word into another (spec 7.1, 7.4). Word lists are the only evidence that holds for every
language the same way; the article's own vocabulary is too small to tell ``emitir`` from a typo.

wordfreq (Speer et al.) ships frequency lists built from Wikipedia, subtitles, news, books and
web text, offline inside the wheel. Frequencies are Zipf values: log10 of uses per billion
words (6 = once per thousand, 3 = once per million, 0 = absent). Only languages with a
``large`` list are covered: it goes down to once per hundred million words, so a string absent
from it is evidence; the ``small`` lists stop at once per million, where rare real words and
typos look alike. A language without a large list gets no lexicon, and callers reject.

Corpora contain typos too (``recieve`` is 2.75, ``govenrment`` 1.07) and rare real words are as
rare (``wane`` 2.83, ``ingenuous`` 1.92), so frequency cannot draw one line between them. There
are two, with a band between them where a string is neither a sure word nor a sure non-word:
a word is used at least once per million words; a non-word less than once per hundred million
and at least a hundred times less than the word it is said to be a typo of.
"""

from __future__ import annotations

import functools

import wordfreq

from article_runtime.text.unicode_fix import unicode_fix

__all__ = ["NON_WORD_ZIPF", "TYPO_GAP_ZIPF", "WORD_ZIPF", "Lexicon", "lexicon_for"]

WORD_ZIPF = 3.0  # at least once per million words: a word of the language
NON_WORD_ZIPF = 2.0  # under once per hundred million words: not a word in use
TYPO_GAP_ZIPF = 2.0  # a typo's fix is at least a hundred times more frequent than the typo


@functools.cache
def _covered() -> frozenset[str]:
    return frozenset(wordfreq.available_languages(wordlist="large"))


class Lexicon:
    """One language's word list; build it with ``lexicon_for``."""

    def __init__(self, language: str) -> None:
        self.language = language

    def zipf(self, word: str) -> float:
        """Zipf frequency of ``word`` without invisible debris (wordfreq case-folds; 0.0 when
        absent)."""
        return float(wordfreq.zipf_frequency(unicode_fix(word), self.language, wordlist="large"))

    def is_word(self, word: str) -> bool:
        return self.zipf(word) >= WORD_ZIPF

    def is_non_word(self, word: str) -> bool:
        return self.zipf(word) < NON_WORD_ZIPF

    def is_typo_of(self, typo: str, word: str) -> bool:
        """``typo`` is no word in use and ``word`` is one, far more frequent."""
        typo_zipf, word_zipf = self.zipf(typo), self.zipf(word)
        return (
            typo_zipf < NON_WORD_ZIPF
            and word_zipf >= WORD_ZIPF
            and word_zipf - typo_zipf >= TYPO_GAP_ZIPF
        )


def _primary_subtag(language: str) -> str:
    return language.replace("_", "-").split("-", 1)[0].strip().lower()


@functools.cache
def lexicon_for(language: str | None) -> Lexicon | None:
    """The word list of ``language`` (a BCP 47 tag), or None when no large list covers it."""
    if not language:
        return None
    code = _primary_subtag(language)
    return Lexicon(code) if code in _covered() else None
