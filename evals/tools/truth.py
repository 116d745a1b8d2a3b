"""Expected kept sets from a benchmark truth: the blocks whose text is mostly inside it.

A block counts as inside when at least half of its word trigrams (its words, for blocks of
fewer than three) occur in the truth's main text. Words come from ICU, casefolded.
"""

from __future__ import annotations

from collections.abc import Sequence

from article_runtime.model import Block
from article_runtime.text import words

INSIDE_SHARE = 0.5
_N = 3


def _grams(text: str, locale: str) -> list[tuple[str, ...]]:
    tokens = [w.casefold() for w in words(text, locale)]
    if len(tokens) < _N:
        return [(t,) for t in tokens]
    return [tuple(tokens[i : i + _N]) for i in range(len(tokens) - _N + 1)]


def inside_share(text: str, truth: str, locale: str) -> float:
    grams = _grams(text, locale)
    if not grams:
        return 0.0
    tokens = [w.casefold() for w in words(truth, locale)]
    known: set[tuple[str, ...]] = {(t,) for t in tokens}
    known |= {tuple(tokens[i : i + _N]) for i in range(len(tokens) - _N + 1)}
    return sum(g in known for g in grams) / len(grams)


def expected_blocks(blocks: Sequence[Block], truth: str, locale: str) -> list[str]:
    """IDs of the blocks mostly inside ``truth``, in base order."""
    return [b.id for b in blocks if inside_share(b.text, truth, locale) >= INSIDE_SHARE]
