"""Locale-aware equality through ICU collation: when two tags or words count as the same.

PRIMARY strength folds case, accents and width (Zürich = zurich, ＡＢＣ = abc, とうきょう =
トウキョウ) but keeps expansions apart (ü is u, not ue: Müller and Mueller differ). With
``ignore_punctuation`` the ALTERNATE_HANDLING=SHIFTED attribute makes spaces and punctuation
ignorable (e-commerce = ecommerce, São Paulo = SAO PAULO). The article's locale decides
tailorings (Swedish keeps ö apart from o); an unknown language falls back to the root order.
"""

from __future__ import annotations

from functools import lru_cache

import icu

_NO_MATCH = -1  # USEARCH_DONE


@lru_cache(maxsize=64)
def collator(language: str | None, *, ignore_punctuation: bool) -> icu.Collator:
    """A PRIMARY-strength collator for ``language``; shared, so never reconfigure it."""
    coll = icu.Collator.createInstance(icu.Locale(language or "root"))
    coll.setStrength(icu.Collator.PRIMARY)
    coll.setAttribute(icu.UCollAttribute.NORMALIZATION_MODE, icu.UCollAttributeValue.ON)
    if ignore_punctuation:
        coll.setAttribute(icu.UCollAttribute.ALTERNATE_HANDLING, icu.UCollAttributeValue.SHIFTED)
    return coll


def collation_key(text: str, language: str | None, *, ignore_punctuation: bool) -> bytes:
    """Equal keys mean equal text at PRIMARY strength: a dict key for duplicate checks."""
    key: bytes = collator(language, ignore_punctuation=ignore_punctuation).getSortKey(text)
    return key


def same_text(a: str, b: str, language: str | None) -> bool:
    """``a`` and ``b`` are the same text once case, accents, spaces and punctuation fold."""
    return collation_key(a, language, ignore_punctuation=True) == collation_key(
        b, language, ignore_punctuation=True
    )


def occurs_in(pattern: str, text: str, language: str | None) -> bool:
    """``pattern`` occurs somewhere in ``text`` under PRIMARY collation (ICU StringSearch)."""
    if not pattern or not text:
        return False
    coll = collator(language, ignore_punctuation=False)
    search = icu.StringSearch(pattern, text, coll)
    return bool(search.first() != _NO_MATCH)
