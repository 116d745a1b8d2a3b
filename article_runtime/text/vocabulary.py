"""The article as its own dictionary: which words it uses, and how often.

A word the article uses elsewhere is evidence that it is real, beside the language's dictionaries
(``spelling``): it covers names and jargon they lack.
Sentences are counted once however many candidates repeat them (a title found as ``<title>``,
``og:title`` and ``<h1>`` is one use, so a typo in it is not "attested" by its copies).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from article_runtime.text.names import word_key
from article_runtime.text.segments import nfc, normalize_space, segments
from article_runtime.text.sentences import sentences


class Vocabulary:
    """Counts of the article's words by case-folded form, over distinct sentences."""

    def __init__(self, texts: Iterable[str], locale: str = "root") -> None:
        unique = {normalize_space(nfc(s)) for text in texts for s in sentences(text, locale)}
        self._all: Counter[str] = Counter(
            word_key(sentence[start:end])
            for sentence in unique
            for start, end, status in segments(sentence, locale)
            if status >= 200  # letters, kana and ideographs; not numbers, spaces or marks
        )

    def count(self, word: str) -> int:
        """Uses of ``word`` in any case."""
        return self._all[word_key(word)]
