"""Numbers, dates and scores as protected content (spec 7.1: never alter numbers, dates, scores).

ICU keeps ``12.05.2024``, ``1.500`` and ``4,5`` whole as number tokens but splits ``3-1``,
``2:0`` and ``12/05`` into number, punctuation, number: those runs are protected as a whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from article_runtime.text.chars import (
    decomposition_type,
    is_horizontal_space,
    is_number_sign,
    numeric_value,
)
from article_runtime.text.segments import Token, graphemes

NumericLabel = Literal["number", "date", "score"]

# Width is presentation (１ is 1); superscript, fraction or circled forms are other content.
_SAME_AS_PLAIN = frozenset({"None", "Wide", "Narrow", "Canonical"})
_DATE_SEPARATORS = frozenset("/.")
_MAX_RUN_SEPARATOR = 2  # graphemes between two numbers of one run: "3-1", "12//05"


@dataclass(frozen=True, slots=True)
class NumericRun:
    start: int
    end: int
    label: NumericLabel


def _atom(ch: str) -> str:
    value = numeric_value(ch)
    if value is None:
        return ch
    form = decomposition_type(ch)
    return f"{value:g}" if form in _SAME_AS_PLAIN else f"{value:g}/{form}"


def numeric_signature(tokens: Sequence[Token]) -> list[tuple[str, ...]]:
    """Every number token whole (separators matter: 1.500 is not 1,500) and every numeric
    character elsewhere (Ⅻ, ½, 三, the 19 in COVID19), compared by value and form."""
    signature: list[tuple[str, ...]] = []
    for token in tokens:
        if token.kind == "number":
            signature.append(tuple(_atom(ch) for ch in token.text))
            continue
        digits = tuple(_atom(ch) for ch in token.text if numeric_value(ch) is not None)
        if digits:
            signature.append(digits)
    return signature


def looks_like_date(token_text: str) -> bool:
    """A single number token with two or more separators (12.05.2024) reads as a date."""
    return sum(1 for ch in token_text if numeric_value(ch) is None) >= 2


def _separator(token: Token) -> bool:
    return token.kind == "none" and not token.text.isspace()


def numeric_runs(tokens: Sequence[Token]) -> list[NumericRun]:
    """Runs number-punctuation-number with no spaces (3-1, 2:0, 12/05, 1/2/2024).

    ``tokens`` must include whitespace tokens so a space ends a run.
    """
    runs: list[NumericRun] = []
    i = 0
    while i < len(tokens):
        if tokens[i].kind != "number":
            i += 1
            continue
        numbers, seps, j = 1, "", i
        while True:
            k = j + 1
            gap = ""
            while k < len(tokens) and _separator(tokens[k]):
                gap += tokens[k].text
                k += 1
            joined = k < len(tokens) and tokens[k].kind == "number"
            if not gap or not joined or len(graphemes(gap)) > _MAX_RUN_SEPARATOR:
                break
            seps += gap
            numbers += 1
            j = k
        if numbers > 1:
            dated = numbers > 2 or any(ch in _DATE_SEPARATORS for ch in seps)
            label: NumericLabel = "date" if dated else "score"
            runs.append(NumericRun(tokens[i].start, tokens[j].end, label))
        i = j + 1
    return runs


def _glued(ch: str, locale: str) -> bool:
    return is_number_sign(ch, locale) or is_horizontal_space(ch)


def _sign_before(text: str, start: int, locale: str) -> str:
    i = start
    while i > 0 and _glued(text[i - 1], locale):
        i -= 1
    return text[i:start].lstrip()


def _unit_after(text: str, end: int, locale: str) -> str:
    j = end
    while j < len(text) and _glued(text[j], locale):
        j += 1
    return text[end:j].rstrip()


def number_affixes(text: str, tokens: Sequence[Token], locale: str = "root") -> list[str]:
    """Every number token with its sign and unit (``-15``, ``$ 12``, ``35%``, ``+3``), in order.

    A sign belongs to its number (spec 7.1), so these compare whole: ``-15`` is not ``15`` and
    ``- 15`` (a dash, then a number) is not ``-15``.
    """
    found: list[str] = []
    for token in tokens:
        if token.kind == "number":
            sign = _sign_before(text, token.start, locale)
            found.append(sign + token.text + _unit_after(text, token.end, locale))
    return found
