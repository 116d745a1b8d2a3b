"""One repair applied to its whole target, with library diffs in target offsets.

Protections and category checks read the same ``Edit``, so each diff is computed once.
"""

from __future__ import annotations

import bisect
import itertools
from dataclasses import dataclass
from functools import cached_property

from article_runtime.model.proposal import Repair
from article_runtime.text.edits import CharChange, TokenChange, char_changes
from article_runtime.text.edits import token_changes as diff_tokens
from article_runtime.text.names import name_starts
from article_runtime.text.numbers import number_affixes, numeric_signature
from article_runtime.text.quotes import Span, quoted_spans
from article_runtime.text.segments import Token, graphemes, word_tokens

__all__ = ["Edit", "Target"]


@dataclass(frozen=True)
class Target:
    """What the protections need to know about one target, computed once for all its repairs."""

    text: str
    locale: str
    tokens: list[Token]
    names: set[int]
    quotes: list[Span]

    @classmethod
    def read(cls, text: str, locale: str) -> Target:
        tokens = word_tokens(text, locale, keep_spaces=True)
        names = name_starts(tokens, text, locale)
        return cls(text, locale, tokens, names, quoted_spans(text, tokens))

    @cached_property
    def grapheme_edges(self) -> frozenset[int]:
        """Offsets between user-perceived characters: where a repair may start or end."""
        return frozenset(itertools.accumulate((len(g) for g in graphemes(self.text)), initial=0))

    @cached_property
    def numbers(self) -> tuple[list[tuple[str, ...]], list[str]]:
        """The numeric signature and the numbers with their signs and units."""
        signature = numeric_signature(self.tokens)
        return signature, number_affixes(self.text, self.tokens, self.locale)

    @cached_property
    def _starts(self) -> list[int]:
        return [token.start for token in self.tokens]

    def token_span(self, start: int, end: int) -> tuple[int, int]:
        """``[start, end)`` widened to the whole tokens (words, spaces, marks) it touches."""
        first = max(bisect.bisect_right(self._starts, start) - 1, 0)
        last = max(bisect.bisect_left(self._starts, end) - 1, first)
        if not self.tokens:
            return start, end
        return min(start, self.tokens[first].start), max(end, self.tokens[last].end)


@dataclass(frozen=True, slots=True)
class Edit:
    """One repair applied to its whole target, with library diffs in target offsets."""

    repair: Repair
    target: Target
    start: int
    edited_text: str
    edited: list[Token]
    tokens: list[TokenChange]
    chars: list[CharChange]

    @classmethod
    def make(cls, repair: Repair, target: Target, start: int) -> Edit:
        end = start + len(repair.original)
        text = target.text[:start] + repair.replacement + target.text[end:]
        edited = word_tokens(text, target.locale, keep_spaces=True)
        chars = [
            CharChange(c.start + start, c.end + start, c.removed, c.inserted)
            for c in char_changes(repair.original, repair.replacement)
        ]
        return cls(repair, target, start, text, edited, diff_tokens(target.tokens, edited), chars)

    def touches(self, start: int, end: int) -> bool:
        """Whether a changed character falls in ``[start, end)`` (insertions strictly inside)."""
        for change in self.chars:
            if change.start == change.end and start < change.start < end:
                return True
            if change.start < change.end and change.start < end and start < change.end:
                return True
        return False
