"""Two independent extractors vote on blocks; agreement is the deterministic path's evidence.

``dom``: a readability-style score over our own blocks (text length, punctuation, link
density), propagated to container ancestors; the best container's blocks win.
``trafilatura``: its text output matched back to our blocks by normalized text (NFC, casefold,
collapsed whitespace): a block counts when it is a whole output line or lies inside the output.
It reads lexbor's tree, serialized (``trafilatura_input``), not the raw page: one parse of
broken markup, a browser's, for both extractors.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence

import icu
import trafilatura
from selectolax.lexbor import LexborHTMLParser

from article_runtime.candidates.segment import RawBlock
from article_runtime.text.chars import without_invisible_junk
from article_runtime.text.segments import count_words, nfc

DOM = "dom"
TRAFILATURA = "trafilatura"
MIN_SCORED_CHARS = 25  # shorter blocks carry no evidence of being prose
MAX_LINK_DENSITY = 0.5
SHORT_MATCH_CHARS = 20  # shorter blocks must equal a whole output line, not just occur in it
# trafilatura's fast mode skips its fallback extractors; with output short in characters and
# in words it most likely missed the article, and the full mode runs (about 5% of benchmark
# pages). Words too: Chinese and Japanese write a word in one to three characters, so a whole
# article can be under 1000 characters (on both such bench pages the full mode found nothing
# more). 1000 characters of English prose hold about 160-180 ICU words (the bench outputs
# under 1000 characters in other scripts at most 153): those are all retried as before.
MIN_FAST_CHARS = 1000
MIN_FAST_WORDS = 200
# trafilatura's main pass is quadratic in wide elements (10 000 inline elements in one <p>: 1 s;
# 20 000: 4 s; 120 000 sibling paragraphs: 10 s); past these limits, 20x and 5x the largest of
# 905 real pages, the DOM heuristic votes alone.
TRAFILATURA_MAX_ELEMENTS = 40_000
TRAFILATURA_MAX_WIDTH = 5_000  # element children of one element; real pages: at most ~1 000
_TOO_WIDE = f"*:nth-child({TRAFILATURA_MAX_WIDTH + 1})"
# What trafilatura deletes unread from every tree it is given, in its main pass
# (``tree_cleaning``) and in its page measure and rescue (``basic_cleaning``): parsing and
# pruning them only cost it time. JSON-LD stays: it reads articles and forum posts there; and
# a <meta> in the body (microdata) ends a line of its text.
_UNREAD = 'script:not([type="application/ld+json"]), style, head meta, head link'
# The fast mode's main pass deletes these too (``tree_cleaning``; asides, footers and navs are
# about 15% of its time). Not unread everywhere: when the main pass finds little, its rescue
# and page measure read a nav's text, and the full mode's readability reads all of them (an
# svg's text on a page without other text; a page whose whole article sat in an <aside>): so
# the full mode gets them back (``trafilatura_text``). Measured on the bench sets: every
# quality row the same or better.
_UNREAD_FAST = f"{_UNREAD}, svg, aside, footer, nav"


def fold(text: str) -> str:
    """Comparison form: NFC, casefold, whitespace collapsed, invisible debris left out.

    trafilatura's output has no soft hyphen or zero-width space (it drops every character
    that is not printable), so a hyphenated paragraph never matched its output line, and
    the vote missed whole articles set with soft hyphens (German pages, te-dev)."""
    return " ".join(without_invisible_junk(nfc(text)).casefold().split())


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


def _widened(best: int, parents: dict[int, int | None], scores: dict[int, float]) -> int:
    """``best``, or the nearest ancestor it is the only child of, as far as scores reach.

    Readability's step before its sibling rule: an article split into modules (a wrapper per
    run of paragraphs, between images or quotes) has each run in a wrapper that is its
    parent's only child, so the runs' siblings are a level or two up, never the best run's.
    """
    children: dict[int | None, int] = defaultdict(int)
    for parent in parents.values():
        children[parent] += 1
    up = parents.get(best)
    while up is not None and up in scores and children[up] == 1:
        best, up = up, parents.get(up)
    return best


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
    best = _widened(max(scores, key=lambda c: scores[c]), parents, scores)
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


def trafilatura_input(tree: LexborHTMLParser, *, fast: bool = True) -> str | None:
    """``tree`` serialized for trafilatura, without what it would delete unread; None when it
    is too big for trafilatura (``TRAFILATURA_MAX_*``, counted after those deletions).

    lexbor's tree, not the raw page: lxml reads broken markup otherwise than a browser (and
    our blocks), and trafilatura then found one page-long line on pages whose article it now
    finds. Takes the deleted elements out of ``tree``: call it after every other reader.
    """
    for node in tree.css(_UNREAD_FAST if fast else _UNREAD):
        node.decompose(recursive=False)  # unlinked whole, children and all
    html = tree.html or ""
    if element_bound(html) <= TRAFILATURA_MAX_WIDTH:
        return html  # most pages: too few elements for either limit, none counted
    elements = len(tree.css("*"))
    if elements > TRAFILATURA_MAX_ELEMENTS:
        return None
    # lexbor's :nth-child costs grow with the square of a width: asked only where one can be
    # too wide (0.24 s on 60 000 <b> in one <p>)
    if elements > TRAFILATURA_MAX_WIDTH and tree.css_first(_TOO_WIDE) is not None:
        return None
    return html


def element_bound(html: str) -> int:
    """At least the number of elements in serialized ``html``: each has one start tag, a
    ``<`` that opens no end tag. Two passes in C, not a Python object per element."""
    return html.count("<") - html.count("</")


def trafilatura_text(html: str, full_html: Callable[[], str | None] | None = None) -> str:
    """trafilatura's main text, one line per unit it recognized ('' when it finds none).

    Its fast mode first; output shorter than ``MIN_FAST_CHARS`` and ``MIN_FAST_WORDS`` is
    retried once with the full mode, on ``full_html()`` (``trafilatura_input(fast=False)``)
    when given, else on ``html``.
    """
    out = _extract(html, fast=True)
    if len(out) < MIN_FAST_CHARS and count_words(out, at_most=MIN_FAST_WORDS) < MIN_FAST_WORDS:
        full = full_html() if full_html is not None else html
        if full is not None:
            out = _extract(full, fast=False)
    return out


def _extract(html: str, *, fast: bool) -> str:
    out = trafilatura.extract(
        html, fast=fast, include_comments=False, include_tables=True, deduplicate=False
    )
    return out or ""


def output_keys(text: str) -> tuple[set[str], str]:
    """The folded output lines, each also without a list, heading or quote mark, and
    ``fold(text)``: joined from the folded lines, as lines break at white space, where
    neither NFC nor casefold joins characters (each line folded once, not three times)."""
    raw_lines = text.splitlines()
    output = [fold(line) for line in raw_lines]
    lines = set(output)
    for line in raw_lines:
        marked = line.lstrip("-#*> ")
        if marked != line:
            lines.add(fold(marked))
    return lines, " ".join(line for line in output if line)


def trafilatura_selection(blocks: Sequence[RawBlock], text: str) -> set[int]:
    """Indices of blocks whose folded text is an output line or sits inside the output."""
    if not text:
        return set()
    lines, whole = output_keys(text)
    chosen: set[int] = set()
    for block in blocks:
        folded = fold(block.text)
        if not folded:
            continue
        matched = folded in lines or (len(folded) >= SHORT_MATCH_CHARS and folded in whole)
        if matched or (block.rows and _table_rows_in(block.rows, lines)):
            chosen.add(block.index)
    return chosen


def _table_rows_in(rows: Sequence[Sequence[str]], lines: set[str]) -> bool:
    """Whether most of a table's rows are output lines: trafilatura writes a table row by
    row as ``| cell | cell |``, never as the cells' text run together."""
    found = sum(fold("| " + " | ".join(row) + " |") in lines for row in rows)
    return 2 * found >= len(rows)


def vote(
    blocks: Sequence[RawBlock],
    parents: dict[int, int | None],
    html: str | None,
    full_html: Callable[[], str | None] | None = None,
) -> None:
    """Fill each block's ``extractors`` with the extractors that selected it.

    ``html`` (and ``full_html``, see ``trafilatura_text``) is what trafilatura reads; None
    (a page too big for it, see ``trafilatura_input``) leaves the vote to the DOM heuristic.
    """
    dom = dom_selection(blocks, parents)
    traf = set()
    if html is not None:
        traf = trafilatura_selection(blocks, trafilatura_text(html, full_html))
    for block in blocks:
        block.extractors = [
            name for name, chosen in ((DOM, dom), (TRAFILATURA, traf)) if block.index in chosen
        ]
