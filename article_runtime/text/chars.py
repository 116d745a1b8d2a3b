"""Character classes the repair rules lean on, read from Unicode properties through ICU.

Properties, not lists: ``Quotation_Mark`` catches ``"``, ``„`` and ``「`` that Pi/Pf miss, ICU's
numeric value catches Ⅻ, ½, ² and 三 that ``isdigit`` misses.
"""

from __future__ import annotations

import unicodedata

import icu

_REPLACEMENT_CHAR = "\ufffd"

# Compatibility decompositions that only change presentation (width, ligature, contextual
# shape, no-break); super/sub/fraction/circle/square/font change what a reader sees as content.
_PRESENTATIONAL_DECOMPOSITIONS = frozenset(
    {"Compat", "Initial", "Medial", "Final", "Isolated", "Wide", "Narrow", "Vertical", "Nobreak"}
)


def is_quote_mark(ch: str) -> bool:
    """Unicode ``Quotation_Mark``: the apostrophe is one too, so callers skip in-word marks."""
    return bool(icu.Char.hasBinaryProperty(ch, icu.UProperty.QUOTATION_MARK))


def is_sentence_terminal(ch: str) -> bool:
    """Unicode ``Sentence_Terminal`` (. ? ! 。 ？ ...): swapping these changes what is said."""
    return bool(icu.Char.hasBinaryProperty(ch, icu.UProperty.S_TERM))


def numeric_value(ch: str) -> float | None:
    """ICU's numeric value, so Ⅻ, ½, ² and 三 count as numbers alongside ASCII digits."""
    value = icu.Char.getNumericValue(ch)
    return None if value is None else float(value)


def decomposition_type(ch: str) -> str:
    """ICU's long name of the character's decomposition type (``None``, ``Super``, ``Wide``...)."""
    prop = icu.UProperty.DECOMPOSITION_TYPE
    value = icu.Char.getIntPropertyValue(ch, prop)
    name = icu.Char.getPropertyValueName(prop, value, icu.UPropertyNameChoice.LONG_PROPERTY_NAME)
    return str(name)


def is_presentational_compat(ch: str) -> bool:
    """A compatibility form whose NFKC folding keeps the content (ﬁ, fullwidth, Arabic)."""
    return decomposition_type(ch) in _PRESENTATIONAL_DECOMPOSITIONS


def is_removable(ch: str) -> bool:
    """Invisible debris a unicode fix may delete: controls, format characters, U+FFFD.

    Join controls (ZWJ, ZWNJ) are kept: they shape emoji sequences and Persian or Indic words.
    """
    if ch == _REPLACEMENT_CHAR:
        return True
    category = unicodedata.category(ch)
    if category == "Cc":
        return not ch.isspace()
    if category == "Cf":
        return not icu.Char.hasBinaryProperty(ch, icu.UProperty.JOIN_CONTROL)
    return False


def is_punct_or_symbol(ch: str) -> bool:
    """General category P* or S*: what a punctuation repair is allowed to touch."""
    return unicodedata.category(ch)[0] in "PS"


def is_plain_mark(ch: str) -> bool:
    """Punctuation or a plain symbol (math, currency, modifier); emoji and other So carry tone."""
    category = unicodedata.category(ch)
    return category[0] == "P" or category in ("Sm", "Sc", "Sk")


def is_combining_mark(ch: str) -> bool:
    """Nonspacing or enclosing mark (Mn, Me), the tail of a combining sequence."""
    return unicodedata.category(ch) in ("Mn", "Me")
