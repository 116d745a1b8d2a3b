"""Quoted spans of a text, found by the ``Quotation_Mark`` property (spec 7.1: no quote rewrite).

Pairing is language-agnostic: a mark after a space (or text start) and before a non-space opens,
the mirror closes (flanking, as CommonMark does for emphasis); when both or neither hold, the
general category decides (Ps/Pi open, Pe/Pf close) and a neutral ``"`` closes whatever is open.
German „…“, French « … », Swedish ”…” and Japanese 「…」 all pair this way. An unmatched mark
protects to the text's edge: a quote may continue from or into the next paragraph.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import icu

from article_runtime.text.chars import is_punct_or_symbol
from article_runtime.text.segments import segments


@dataclass(frozen=True, slots=True)
class Span:
    start: int
    end: int


def _open_side(ch: str | None) -> bool:
    return ch is None or ch.isspace() or is_punct_or_symbol(ch)


def opens(text: str, pos: int, depth: int) -> bool:
    """Whether the mark at ``pos`` opens a quote, ``depth`` quotes being open before it."""
    before = text[pos - 1] if pos > 0 else None
    after = text[pos + 1] if pos + 1 < len(text) else None
    left, right = _open_side(before), _open_side(after)
    if left and not right:
        return True
    if right and not left:
        return False
    category = unicodedata.category(text[pos])
    if category in ("Ps", "Pi"):
        return True
    if category in ("Pe", "Pf"):
        return False
    return depth == 0


# Unicode ``Quotation_Mark`` through ICU: ", „, « and 「 alike (Pi/Pf miss some).
_QUOTE_CHARS = frozenset(str(ch) for ch in icu.UnicodeSet("[:Quotation_Mark:]"))


def quote_marks(text: str, locale: str = "root") -> list[int]:
    """Offsets of quotation marks that stand alone; an apostrophe inside a word (don't, l'eau)
    belongs to the word token and is not a quote. Text without any mark costs no segmentation."""
    if _QUOTE_CHARS.isdisjoint(text):
        return []
    return [
        start + i
        for start, end, status in segments(text, locale)
        if status < 100  # punctuation, symbols and spaces: the kind "none"
        for i, ch in enumerate(text[start:end])
        if ch in _QUOTE_CHARS
    ]


def pair_marks(text: str, marks: list[int]) -> tuple[list[Span], list[int]]:
    """Spans from an opening mark to its closing mark, both included; and how many quotes are
    open before each mark (what ``opens`` decides with)."""
    spans: list[Span] = []
    stack: list[int] = []
    depths: list[int] = []
    for pos in marks:
        depths.append(len(stack))
        if opens(text, pos, len(stack)):
            stack.append(pos)
        elif stack:
            spans.append(Span(stack.pop(), pos + 1))
        else:
            spans.append(Span(0, pos + 1))
    spans.extend(Span(pos, len(text)) for pos in stack)
    return sorted(spans, key=lambda span: (span.start, span.end)), depths


def quoted_spans(text: str, locale: str = "root") -> list[Span]:
    """Spans from an opening mark to its closing mark, both included."""
    return pair_marks(text, quote_marks(text, locale))[0]
