"""Quoted spans of a text, found by the ``Quotation_Mark`` property (spec 7.1: no quote rewrite).

Pairing is language-agnostic: a mark after a space (or text start) and before a non-space opens,
the mirror closes (flanking, as CommonMark does for emphasis); when both or neither hold, the
general category decides (Ps/Pi open, Pe/Pf close) and a neutral ``"`` closes whatever is open.
German „…“, French « … », Swedish ”…” and Japanese 「…」 all pair this way. An unmatched mark
protects to the text's edge: a quote may continue from or into the next paragraph.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from article_runtime.text.chars import is_punct_or_symbol, is_quote_mark
from article_runtime.text.segments import Token


@dataclass(frozen=True, slots=True)
class Span:
    start: int
    end: int


def _open_side(ch: str | None) -> bool:
    return ch is None or ch.isspace() or is_punct_or_symbol(ch)


def _opens(text: str, pos: int, depth: int) -> bool:
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


def quote_marks(text: str, tokens: Sequence[Token]) -> list[int]:
    """Offsets of quotation marks that stand alone; an apostrophe inside a word (don't, l'eau)
    belongs to the word token and is not a quote."""
    return [
        token.start + i
        for token in tokens
        if token.kind == "none"
        for i, ch in enumerate(token.text)
        if is_quote_mark(ch)
    ]


def quoted_spans(text: str, tokens: Sequence[Token]) -> list[Span]:
    """Spans from an opening mark to its closing mark, both included."""
    spans: list[Span] = []
    stack: list[int] = []
    for pos in quote_marks(text, tokens):
        if _opens(text, pos, len(stack)):
            stack.append(pos)
        elif stack:
            spans.append(Span(stack.pop(), pos + 1))
        else:
            spans.append(Span(0, pos + 1))
    spans.extend(Span(pos, len(text)) for pos in stack)
    return sorted(spans, key=lambda span: (span.start, span.end))
