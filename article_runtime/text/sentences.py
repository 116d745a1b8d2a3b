"""ICU sentence segmentation with Python-string offsets.

The ``@ss=standard`` locale keyword turns on ICU's own abbreviation suppressions where its data
has them (``Mr.`` in English), so no abbreviation list lives here.
"""

from __future__ import annotations

from itertools import pairwise

import icu

from article_runtime.text.segments import _is_bmp, _py_offsets


def sentence_bounds(text: str, locale: str = "root") -> list[int]:
    """Python offsets of every sentence boundary, ``0`` and ``len(text)`` included."""
    breaker = icu.BreakIterator.createSentenceInstance(icu.Locale(f"{locale}@ss=standard"))
    breaker.setText(icu.UnicodeString(text))
    if _is_bmp(text):
        return [breaker.first(), *breaker]
    offsets = _py_offsets(text)
    return [offsets[breaker.first()], *(offsets[end16] for end16 in breaker)]


def sentences(text: str, locale: str = "root") -> list[str]:
    """The sentences of ``text``, trailing spaces kept so they join back into ``text``."""
    bounds = sentence_bounds(text, locale)
    return [text[start:end] for start, end in pairwise(bounds)]
