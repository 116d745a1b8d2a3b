"""Word-hood and spelling fixes from a language's Hunspell dictionaries (spec 7.1, 7.4).

A repair may turn a string that is no word of the article's language into one that is, and only
as the language's own dictionary would: the model proposes, the dictionary must agree. Frequency
is no word-hood (``moot`` and ``skein`` are rare and real, ``definately`` is common and wrong),
so word-hood comes from spelling dictionaries and wordfreq only ranks equally close suggestions.

A language's dictionaries are every regional variant installed (``en_GB`` and ``en_US``;
``pt_BR`` and ``pt_PT``; ``de_DE``, ``de_AT`` and ``de_CH``): a word any of them accepts is a word,
so no fix turns one variant's spelling into another's (``colour`` stays). A fix is what one of
them would make of the original: its first suggestion, or the most frequent (wordfreq) of its
one-word suggestions at the smallest grapheme edit distance. A language with no dictionary
installed has no speller, and callers refuse (``language_not_covered``).

Dictionaries are found by file name in ``DICTIONARY_DIRS`` (``<language>.dic`` or
``<language>_<REGION>.dic``, one per distinct file), loaded on first use and kept. Suggestions
cost Hunspell tens of milliseconds (a few hundred for Brazilian Portuguese), so each is cached,
and callers count every lookup against a budget whether cached or not, so a verdict never
depends on what an earlier article left in the cache.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

import wordfreq

from article_runtime.text.edits import edit_distance
from article_runtime.text.hunspell import Dictionary, load_library
from article_runtime.text.segments import graphemes, nfc, word_tokens

__all__ = ["DICTIONARY_DIRS", "Speller", "speller_for"]

DICTIONARY_DIRS: tuple[Path, ...] = (Path("/usr/share/hunspell"),)
_SUGGESTION_CACHE = 4096


def _primary_subtag(language: str) -> str:
    return language.replace("_", "-").split("-", 1)[0].strip().lower()


def _names_language(stem: str, code: str) -> bool:
    """``pt`` names ``pt`` and ``pt_BR``, not ``pt_BR-med`` or ``pt_BR_frami`` (other lists)."""
    if stem == code:
        return True
    region = stem.removeprefix(f"{code}_")
    return region != stem and len(region) == 2 and region.isascii() and region.isupper()


def _dictionary_files(code: str) -> list[Path]:
    """``<code>.dic`` and ``<code>_<REGION>.dic`` with their ``.aff``, each distinct file once
    (Debian links ``es_AR`` and twenty others to ``es_ES``), by its real name."""
    found: set[Path] = set()
    for folder in DICTIONARY_DIRS:
        if not folder.is_dir():
            continue
        for dic in folder.glob("*.dic"):
            real = dic.resolve()
            if _names_language(dic.stem, code) and real.with_suffix(".aff").is_file():
                found.add(real)
    return sorted(found, key=lambda path: path.stem)


def _distance(a: str, b: str) -> int:
    return edit_distance(graphemes(nfc(a)), graphemes(nfc(b)))


@functools.cache
def _ranked_languages() -> frozenset[str]:
    return frozenset(wordfreq.available_languages(wordlist="best"))


def _zipf(text: str, language: str) -> float:
    if language not in _ranked_languages():
        return 0.0
    return float(wordfreq.zipf_frequency(text, language, wordlist="best"))


@functools.lru_cache(maxsize=_SUGGESTION_CACHE)
def _fixes(dictionary: Dictionary, language: str, word: str) -> frozenset[str]:
    """What ``dictionary`` makes of ``word``: its first suggestion, and the most frequent of its
    one-word suggestions (one ICU word) at the smallest edit distance, the earlier on a tie:
    a phrase such as ``get her`` or ``get-her`` for ``gether`` is no rival of a word."""
    suggestions = dictionary.suggest(word)
    if not suggestions:
        return frozenset()
    single = [s for s in suggestions if len(word_tokens(s, language, keep_spaces=True)) == 1]
    if not single:
        return frozenset({suggestions[0]})
    distances = [_distance(word, s) for s in single]
    closest = min(distances)
    ranked = [
        (-_zipf(s, language), index)
        for index, (s, d) in enumerate(zip(single, distances, strict=True))
        if d == closest
    ]
    return frozenset({suggestions[0], single[min(ranked)[1]]})


class Speller:
    """The installed dictionaries of one language; build it with ``speller_for``."""

    def __init__(self, language: str, dictionaries: tuple[Dictionary, ...]) -> None:
        self.language = language
        self.dictionaries = dictionaries

    def __repr__(self) -> str:
        return f"Speller({self.language}: {', '.join(d.name for d in self.dictionaries)})"

    def is_word(self, word: str) -> bool:
        """Whether any variant's dictionary accepts ``word`` exactly as written."""
        return any(d.spell(word) for d in self.dictionaries)

    def knows(self, word: str) -> bool:
        """Whether ``word`` is a word in some case: as written or in capitals, which Hunspell
        accepts for every entry (``johnson`` is ``Johnson`` written small, a name)."""
        return self.is_word(word) or self.is_word(word.upper())

    def fixes(self, word: str, replacement: str, charge: Callable[[], None]) -> bool:
        """Whether a dictionary of the language would fix ``word`` into ``replacement``.

        Only dictionaries that accept the replacement are asked (a dictionary suggests only
        words it accepts); ``charge`` is called before each suggestion lookup.
        """
        for dictionary in self.dictionaries:
            if not dictionary.spell(replacement):
                continue
            charge()
            if replacement in _fixes(dictionary, self.language, word):
                return True
        return False


@functools.cache
def speller_for(language: str | None) -> Speller | None:
    """The speller of ``language`` (a BCP 47 tag), or None when no dictionary covers it."""
    if not language:
        return None
    lib = load_library()
    code = _primary_subtag(language)
    if lib is None or not code:
        return None
    files = _dictionary_files(code)
    if not files:
        return None
    return Speller(code, tuple(Dictionary(lib, dic) for dic in files))
