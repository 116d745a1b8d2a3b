"""Character classes the repair rules lean on, read from Unicode properties through ICU.

Properties, not lists: ``Quotation_Mark`` catches ``"``, ``„`` and ``「`` that Pi/Pf miss, ICU's
numeric value catches Ⅻ, ½, ² and 三 that ``isdigit`` misses.
"""

from __future__ import annotations

import functools
import unicodedata

import icu


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


def is_invisible_junk(ch: str) -> bool:
    """Invisible debris a ``unicode`` fix removes and nothing may add.

    Format characters Unicode marks default-ignorable (zero-width space, soft hyphen, word
    joiner, BOM, bidi marks, embeddings and isolates) and C0/C1 controls other than white space
    (Unicode's White_Space: the information separators U+001C-001F are debris).
    Kept: join controls (ZWJ, ZWNJ shape emoji and Persian or Indic words), emoji components
    (tag characters spell flags), and U+FFFD, which marks a lost character rather than debris.
    """
    category = unicodedata.category(ch)
    if category == "Cc":  # Unicode's White_Space: Python's isspace() also counts U+001C-001F
        return not icu.Char.hasBinaryProperty(ch, icu.UProperty.WHITE_SPACE)
    if category != "Cf":
        return False
    if not icu.Char.hasBinaryProperty(ch, icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT):
        return False
    kept = (icu.UProperty.JOIN_CONTROL, icu.UProperty.EMOJI_COMPONENT)
    return not any(icu.Char.hasBinaryProperty(ch, prop) for prop in kept)


def without_invisible_junk(text: str) -> str:
    """``text`` less its invisible debris (``is_invisible_junk``): a soft hyphen inside a word
    is a line-breaking hint, not a character a reader sees or searches for. What Python's
    ``str.split`` and ``splitlines`` break at (the information separators U+001C-001F among
    them) stays, so splitting the result still breaks where splitting ``text`` did."""
    if text.isprintable():  # no format or control character at all: most text
        return text
    return "".join(
        ch for ch in text if ch.isprintable() or ch.isspace() or not is_invisible_junk(ch)
    )


def is_horizontal_space(ch: str) -> bool:
    """A space separator (Zs: space, no-break, ideographic...) or a tab; never a line break."""
    return ch == "\t" or unicodedata.category(ch) == "Zs"


@functools.cache
def _number_symbols(locale: str) -> frozenset[str]:
    symbols = icu.DecimalFormatSymbols(icu.Locale(locale))
    wanted = (icu.DecimalFormatSymbols.kPercentSymbol, icu.DecimalFormatSymbols.kPerMillSymbol)
    found = "".join(str(symbols.getSymbol(which)) for which in wanted)
    return frozenset(ch for ch in found if unicodedata.category(ch) != "Cf")


def is_number_sign(ch: str, locale: str = "root") -> bool:
    """A sign or unit that belongs to a number it touches: currency (Sc), math (Sm: + − ±),
    dashes (Pd: the minus of ``-15``) and the locale's percent and per-mille signs (ICU)."""
    if unicodedata.category(ch) in ("Sc", "Sm", "Pd"):
        return True
    return ch in _number_symbols("root") or ch in _number_symbols(locale)


def is_punct_or_symbol(ch: str) -> bool:
    """General category P* or S*: what a punctuation repair is allowed to touch."""
    return unicodedata.category(ch)[0] in "PS"


def is_plain_mark(ch: str) -> bool:
    """Punctuation or a plain symbol (math, currency, modifier); emoji and other So carry tone."""
    category = unicodedata.category(ch)
    return category[0] == "P" or category in ("Sc", "Sm", "Sk")


_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cn", "Cs"})
_HIDDEN_PROPERTIES = (
    icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT,
    icu.UProperty.BIDI_CONTROL,
    icu.UProperty.VARIATION_SELECTOR,
)


def is_hidden(ch: str) -> bool:
    """What no repair may write (issue 35, section 2): a control, format, private-use,
    unassigned or surrogate code point, or one Unicode marks default-ignorable (Hangul fillers,
    the combining grapheme joiner), a bidi control or a variation selector."""
    if unicodedata.category(ch) in _HIDDEN_CATEGORIES:
        return True
    return any(icu.Char.hasBinaryProperty(ch, prop) for prop in _HIDDEN_PROPERTIES)


def is_white_space(ch: str) -> bool:
    """Unicode ``White_Space``: spaces, tabs and every line break (a code block's layout)."""
    return bool(icu.Char.hasBinaryProperty(ch, icu.UProperty.WHITE_SPACE))


def is_separator_mark(ch: str) -> bool:
    """A comma, colon or semicolon of any script: ``Terminal_Punctuation`` that is no
    ``Sentence_Terminal``, of the Common script. No language writes one twice in a row; marks
    of one script follow that script's own orthography (Tibetan writes its shad twice)."""
    if not icu.Char.hasBinaryProperty(ch, icu.UProperty.TERMINAL_PUNCTUATION):
        return False
    if icu.Char.hasBinaryProperty(ch, icu.UProperty.S_TERM):
        return False
    return bool(icu.Script.getScript(ch).getScriptCode() == icu.UScriptCode.COMMON)


def is_word_char(ch: str) -> bool:
    """A letter, a combining mark or a number (general categories L, M, N)."""
    return unicodedata.category(ch)[0] in "LMN"
