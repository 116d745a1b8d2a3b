"""Is a tag supported by the blocks it cites? Every word of it must occur there (spec 9.3, 9.4).

A tag that adds a word its evidence does not write adds a fact ("Vale absolvida", "multa
cancelada"): half the words is no support. Every word counts, function words too. A word list
that tells content words from function words would have to be written per language, and the
words it would let through unchecked are the ones that turn a fact around: negations and
prepositions (``não``, ``sem``, ``contra``, ``without``). A tag built from the article's own
words loses nothing by this; a tag that needs a word the evidence lacks cites another block.

Words are ICU word segments of the article's locale (letters, numbers, kana, ideographs), NFC
and case-folded, never accent-folded (``é`` is not ``e``: ``pôde`` and ``pode`` differ):

* a letter word is compared through the Snowball stemmer of the article's language (PyStemmer,
  34 languages), so ``multa`` is supported by ``multada`` and ``amende`` by ``amendes``; in a
  language without a stemmer it must equal an evidence word (the conservative answer);
* a number must equal an evidence number as written (``1,2`` is not ``2``);
* a word with punctuation inside (``l'amende``, ``dell'Italia``) also stands for its parts,
  in the tag and in the evidence alike, so ``amende`` is supported by ``l'amende``;
* words of scripts written without spaces (Han, kana, Thai: ``scripts.is_unspaced``) come from
  ICU's dictionary segmentation, which may cut a tag differently out of context. A run of them
  written together in the tag is supported when it splits, at its own word ends, into pieces
  each found in the evidence as whole evidence words in a row: ``新型電気自動車`` is
  ``新型`` and ``電気自動車``, but ``京都`` inside ``東京都`` (``東京`` + ``都``) is not
  Kyoto, and ``知事`` is not a word of ``都知事``.
"""

from __future__ import annotations

import functools
import threading
import unicodedata
from collections.abc import Sequence

import Stemmer

from article_runtime.candidates.language import primary_subtag
from article_runtime.text.scripts import is_unspaced
from article_runtime.text.segments import nfc, segments

__all__ = ["Evidence", "is_grounded", "stemmer_for", "unsupported_words"]

_LETTER_MIN, _NUMBER_MIN = 200, 100  # ICU word rule status: 100-199 numbers, 200+ letters
_local = threading.local()  # PyStemmer objects are not safe to share between threads


def stemmer_for(language: str | None) -> Stemmer.Stemmer | None:
    """The Snowball stemmer of ``language`` (ISO 639-1 or -3 primary subtag), or None."""
    code = primary_subtag(language) if language else None
    if code is None:
        return None
    cache: dict[str, Stemmer.Stemmer | None] = _local.__dict__.setdefault("stemmers", {})
    if code not in cache:
        try:
            cache[code] = Stemmer.Stemmer(code)
        except KeyError:  # PyStemmer names no algorithm for this code
            cache[code] = None
    return cache[code]


def _parts(word: str) -> list[str]:
    """``word`` cut at the punctuation inside it (``l'amende`` -> ``l``, ``amende``)."""
    parts: list[str] = []
    current: list[str] = []
    for ch in word:
        if unicodedata.category(ch)[0] == "P":
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return [part for part in parts if part]


def _key(word: str, stemmer: Stemmer.Stemmer | None) -> str:
    """The word's stem; the word itself when there is no stemmer or the stem is empty (the
    Greek stemmer empties ``όταν`` and ``ίδιο``, which must not then equal each other)."""
    stem: str = stemmer.stemWord(word) if stemmer is not None else ""
    return stem or word


@functools.lru_cache(maxsize=65536)
def _keys(word: str, status: int, language: str | None) -> tuple[str, ...]:
    """The whole word's key first, then its parts' keys when punctuation cuts it (cached:
    an article's words repeat from tag to tag and block to block)."""
    folded = nfc(word).casefold()
    if status < _LETTER_MIN:
        return (folded,)  # a number is compared as written
    stemmer = stemmer_for(language)
    keys = (_key(folded, stemmer),)
    parts = [] if folded.isalpha() else _parts(folded)  # isalpha: no punctuation inside
    return keys + tuple(_key(part, stemmer) for part in parts) if len(parts) > 1 else keys


class Evidence:
    """The text of the blocks a tag cites, read once: the keys of its words, and where its
    words start and end (read only for unspaced runs)."""

    def __init__(self, texts: Sequence[str], language: str | None) -> None:
        self.text = nfc("\n".join(texts))
        self.language = language
        self.locale = language or "root"
        self.keys = frozenset(
            key
            for start, end, status in segments(self.text, self.locale)
            if status >= _NUMBER_MIN
            for key in _keys(self.text[start:end], status, language)
        )

    @functools.cached_property
    def bounds(self) -> frozenset[int]:
        """Offsets where an ICU segment of the text starts or ends."""
        return frozenset(
            at for start, end, _ in segments(self.text, self.locale) for at in (start, end)
        )

    def has_word(self, word: str, status: int) -> bool:
        """The word's key, or every part's key, is a key of the evidence."""
        whole, *parts = _keys(word, status, self.language)
        return whole in self.keys or (bool(parts) and all(p in self.keys for p in parts))

    def has_run(self, pieces: Sequence[str]) -> bool:
        """The unspaced words ``pieces``, written together, split into groups each found in
        the evidence starting and ending where evidence words do."""
        reached = [True] + [False] * len(pieces)
        for i in range(len(pieces)):
            if reached[i]:
                for j in range(i + 1, len(pieces) + 1):
                    reached[j] = reached[j] or self._aligned(nfc("".join(pieces[i:j])))
        return reached[-1]

    def _aligned(self, piece: str) -> bool:
        at = self.text.find(piece)
        while at >= 0:
            if at in self.bounds and at + len(piece) in self.bounds:
                return True
            at = self.text.find(piece, at + 1)
        return False


def unsupported_words(tag: str, evidence: Evidence) -> list[str]:
    """The tag's words (or runs of unspaced words) that its evidence does not support; the
    whole tag when it has no word at all (``"!!"`` supports nothing)."""
    tag = nfc(tag)
    missing: list[str] = []
    run: list[str] = []
    run_end = -1
    worded = False
    for start, end, status in segments(tag, evidence.locale):
        word = tag[start:end]
        if status < _NUMBER_MIN:
            continue
        worded = True
        if is_unspaced(word):
            if run and start != run_end:
                missing.extend(_unsupported_run(run, evidence))
                run = []
            run.append(word)
            run_end = end
        elif not evidence.has_word(word, status):
            missing.append(word)
    if run:
        missing.extend(_unsupported_run(run, evidence))
    return missing if worded else [tag]


def _unsupported_run(run: list[str], evidence: Evidence) -> list[str]:
    return [] if evidence.has_run(run) else ["".join(run)]


def is_grounded(tag: str, evidence: Sequence[str], language: str | None) -> bool:
    """Every word of ``tag`` occurs in ``evidence`` (the cited blocks' texts)."""
    return not unsupported_words(tag, Evidence(evidence, language))
