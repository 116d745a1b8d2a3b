"""Two independent extractors vote on blocks; agreement is the deterministic path's evidence.

``dom``: a readability-style score over our own blocks (text length, punctuation, link
density), propagated to container ancestors; the best container's blocks win.
``trafilatura``: its text output matched back to our blocks by normalized text (NFC, casefold,
collapsed whitespace): a block counts when it is a whole output line or lies inside the output.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import icu
import trafilatura

from article_runtime.candidates.segment import RawBlock
from article_runtime.text.segments import nfc

DOM = "dom"
TRAFILATURA = "trafilatura"
MIN_SCORED_CHARS = 25  # shorter blocks carry no evidence of being prose
MAX_LINK_DENSITY = 0.5
SHORT_MATCH_CHARS = 20  # shorter blocks must equal a whole output line, not just occur in it
# trafilatura's fast mode skips its fallback extractors; below this many characters of output
# it most likely missed the article, and the full mode runs (about 5% of benchmark pages).
MIN_FAST_CHARS = 1000


def fold(text: str) -> str:
    """Comparison form: NFC, casefold, whitespace collapsed."""
    return " ".join(nfc(text).casefold().split())


MAX_PUNCTUATION = 10


_PUNCTUATION = icu.UnicodeSet("[:P:]")
_PUNCTUATION.freeze()  # immutable and faster to query; freeze() returns nothing in PyICU
_OUTSIDE, _INSIDE = icu.USetSpanCondition.SPAN_NOT_CONTAINED, icu.USetSpanCondition.SPAN_CONTAINED


def _punctuation(text: str) -> int:
    """Punctuation marks (Unicode category P*), counted up to ``MAX_PUNCTUATION``.

    ICU spans over runs in C: a per-character Python loop cost 35 µs on a long paragraph.
    """
    rest, found = icu.UnicodeString(text), 0
    while found < MAX_PUNCTUATION:
        rest = rest[_PUNCTUATION.span(rest, _OUTSIDE) :]
        run = _PUNCTUATION.span(rest, _INSIDE)
        if not run:
            break
        found += min(run, MAX_PUNCTUATION - found)
        rest = rest[run:]
    return found


def link_density(block: RawBlock) -> float:
    return block.link_chars / len(block.text) if block.text else 0.0


def _block_score(block: RawBlock) -> float:
    if block.type not in {"paragraph", "quote", "list_item"} or block.boiler:
        return 0.0
    if len(block.text) < MIN_SCORED_CHARS or link_density(block) > MAX_LINK_DENSITY:
        return 0.0
    return (1.0 + _punctuation(block.text) / 2 + min(len(block.text) / 100, 3.0)) * (
        1.0 - link_density(block)
    )


def _ancestors(container: int, parents: dict[int, int | None]) -> list[int]:
    chain: list[int] = []
    current: int | None = container
    while current is not None:
        chain.append(current)
        current = parents.get(current)
    return chain


def dom_selection(blocks: Sequence[RawBlock], parents: dict[int, int | None]) -> set[int]:
    """Indices of blocks inside the best-scoring container (readability's propagation)."""
    scores: dict[int, float] = defaultdict(float)
    for block in blocks:
        score = _block_score(block)
        if not score:
            continue
        for distance, container in enumerate(_ancestors(block.container, parents)[:3]):
            scores[container] += score / (1 + distance)
    if not scores:
        return set()
    best = max(scores, key=lambda c: scores[c])
    threshold = max(10.0, scores[best] * 0.2)
    # Siblings of the winner holding prose too (readability's sibling rule).
    parent = parents.get(best)
    winners = {best} | {
        c for c, s in scores.items() if parents.get(c) == parent and c != best and s >= threshold
    }
    chosen: set[int] = set()
    for block in blocks:
        if block.boiler or link_density(block) > MAX_LINK_DENSITY:
            continue
        if winners.intersection(_ancestors(block.container, parents)):
            chosen.add(block.index)
    return chosen


def trafilatura_text(html: str, *, fast: bool = True) -> str:
    """trafilatura's main text, one line per unit it recognized ('' when it finds none).

    ``fast`` output shorter than ``MIN_FAST_CHARS`` is retried once with the full mode.
    """
    out = trafilatura.extract(
        html, fast=fast, include_comments=False, include_tables=True, deduplicate=False
    )
    if fast and len(out or "") < MIN_FAST_CHARS:
        return trafilatura_text(html, fast=False)
    return out or ""


def trafilatura_selection(blocks: Sequence[RawBlock], text: str) -> set[int]:
    """Indices of blocks whose folded text is an output line or sits inside the output."""
    if not text:
        return set()
    lines = {fold(line.lstrip("-#*> ")) for line in text.splitlines()}
    lines |= {fold(line) for line in text.splitlines()}
    whole = fold(text)
    chosen: set[int] = set()
    for block in blocks:
        folded = fold(block.text)
        if not folded:
            continue
        if folded in lines or (len(folded) >= SHORT_MATCH_CHARS and folded in whole):
            chosen.add(block.index)
    return chosen


def vote(
    blocks: Sequence[RawBlock],
    parents: dict[int, int | None],
    html: str,
    *,
    trafilatura: bool = True,
) -> None:
    """Fill each block's ``extractors`` with the extractors that selected it.

    ``trafilatura=False`` (a page whose shape would cost trafilatura many seconds, see
    ``depth.PageShape``) leaves the vote to the DOM heuristic alone.
    """
    dom = dom_selection(blocks, parents)
    traf = trafilatura_selection(blocks, trafilatura_text(html)) if trafilatura else set()
    for block in blocks:
        block.extractors = [
            name for name, chosen in ((DOM, dom), (TRAFILATURA, traf)) if block.index in chosen
        ]
