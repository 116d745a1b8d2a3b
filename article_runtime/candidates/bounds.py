"""A cheap upper bound on what lexbor builds, so most pages skip ``depth.scan_page``.

The exact pre-scan (``depth.py``) models the tree builder token by token: about 5 ms of a
median page's 25. Most pages hold too few tags for lexbor to be slow or huge on them whatever
their nesting, and that can be seen from a count of tag names (under 1 ms):

- every element lexbor builds comes from a ``<`` (a start tag, or the few it implies: html,
  head, body, tbody, tr, colgroup; a ``</p>`` or ``</br>`` without its start): at most
  ``3 T + 3`` for ``T`` characters ``<``;
- before every token (at most ``2 T + 1``: tags and the text runs between them) the tree
  builder may reopen the active formatting elements after the last marker: at most ``F + 1``
  (``F`` formatting start tags other than ``<a>``, plus the one ``<a>`` the list can hold
  after a marker);
- each adoption agency (``E``: formatting end tags, ``<a>`` and ``<nobr>`` start tags) runs
  its outer loop at most 8 times, each creating one clone of the formatting element and at
  most 3 in the inner loop: at most ``32 E``.

A page with at most ``MAX_TAGS`` tags whose bound stays within ``MAX_ELEMENTS`` is parsed
directly: lexbor's parse is then bounded (it is quadratic only in depth, and depth is at most
the element count), and the DOM walk refuses too deep nesting from lexbor's own tree
(``segment``). trafilatura's lxml runs no adoption agency and reopens nothing, so its tree
holds about one element per tag: ``MAX_TAGS`` keeps it within ``TRAFILATURA_MAX_WIDTH``.
``test_bounds`` generates hostile markup and checks that neither lexbor's tree nor the exact
model ever exceeds the bound, and that candidates do not change.
"""

from __future__ import annotations

from collections import Counter
from typing import NamedTuple

from selectolax.lexbor import LexborHTMLParser

from article_runtime.candidates.depth import (
    MAX_DEPTH,
    MAX_ELEMENTS,
    TRAFILATURA_MAX_WIDTH,
    PageShape,
)
from article_runtime.errors import InputError

__all__ = [
    "MAX_TAGS",
    "TagCounts",
    "bounded_shape",
    "check_tree_depth",
    "code_spans",
    "count_tags",
]

MAX_TAGS = TRAFILATURA_MAX_WIDTH
"""Past this many ``<`` the exact scan runs whatever the bound says: it keeps lexbor's
quadratic cost in depth small, and trafilatura's tree within its width limit."""

_FORMATTING = frozenset(
    ("b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike", "strong", "tt", "u")
)
_ADOPTING_STARTS = frozenset(("a", "nobr"))
_DELIMITERS = " \t\n\f\r/>"
_HEAD = 8  # "/strike>" and "/strong>": the longest heads that name a counted tag
_CODE = ("script", "style")
_VOID = (
    "area base basefont bgsound br col embed frame hr image img input keygen link meta param "
    "source track wbr"
)
# An element opened (not void) 201 levels inside <body>: what the exact scan refuses.
_TOO_DEEP = "body" + " > *" * MAX_DEPTH + f" > *:not({', '.join(_VOID.split())})"
_FOREIGN = ("svg", "math")


class TagCounts(NamedTuple):
    """What the bounds are computed from."""

    tags: int  # "<" characters
    formatting: int  # formatting start tags other than <a>
    adoptions: int  # formatting end tags, <a> and <nobr> start tags
    foreign: bool  # an <svg> or <math> start tag may be present

    @property
    def elements_bound(self) -> int:
        t = self.tags
        return 3 * t + 3 + 32 * self.adoptions + (2 * t + 1) * (self.formatting + 1)

    @property
    def bounded(self) -> bool:
        """Whether lexbor may parse the page without the exact scan first."""
        return self.tags <= MAX_TAGS and self.elements_bound <= MAX_ELEMENTS


def _name(head: str) -> str:
    """The ASCII-lower-case tag name a head starts with, or '' when it does not end there
    (then it is longer than every counted name, or the input ends inside it)."""
    for n, ch in enumerate(head):
        if ch in _DELIMITERS:
            return head[:n].lower() if head[:n].isascii() else ""
    return ""


def count_tags(html: str) -> TagCounts:
    """Count tags by the characters after each ``<``: a start tag is ``<`` and a name ended
    by white space, ``/`` or ``>`` (the tokenizer's rule). Text that only looks like a tag
    (in a comment, a script, an attribute) is counted too, which can only raise the bounds."""
    heads = Counter([part[:_HEAD] for part in html.split("<")[1:]])
    formatting = adoptions = 0
    foreign = False
    for head, count in heads.items():
        if head.startswith("/"):
            if _name(head[1:]) in _FORMATTING or _name(head[1:]) == "a":
                adoptions += count
            continue
        name = _name(head)
        if name in _FORMATTING and name != "a":
            formatting += count
        if name in _ADOPTING_STARTS:
            adoptions += count
        foreign = foreign or name in _FOREIGN
    return TagCounts(html.count("<"), formatting, adoptions, foreign)


def _foreign_from(html: str) -> int:
    """Where the first text that could be an ``<svg>`` or ``<math>`` start tag begins."""
    pos = html.find("<")
    while pos >= 0:
        if _name(html[pos + 1 : pos + 1 + _HEAD]) in _FOREIGN:
            return pos
        pos = html.find("<", pos + 1)
    return len(html)


def code_spans(tree: LexborHTMLParser, html: str, counts: TagCounts) -> tuple[tuple[int, int], ...]:
    """``PageShape.code`` read from lexbor's scripts and styles instead of the exact scan.

    A script's text is lexbor's, so it is code; its place in ``html`` is known only when it
    occurs there once (lexbor keeps raw text as written but for CR and NUL, so pages holding
    either keep their code). The exact scan's rules apply too: no ``json`` in the start tag,
    no ``<!--`` inside, nothing after an ``<svg>`` or ``<math>``, and an end tag right after.
    Any doubt leaves the code in: trafilatura then only does more work.
    """
    if "\r" in html or "\0" in html:
        return ()
    stop = _foreign_from(html) if counts.foreign else len(html)
    spans: list[tuple[int, int]] = []
    for node in tree.css(", ".join(_CODE)):
        text = node.text(deep=True)
        attributes = " ".join(f"{k} {v or ''}" for k, v in node.attributes.items())
        if not text or "<!--" in text or "json" in attributes.lower():
            continue
        start = html.find(text)  # from the start: lexbor's order is not always the source's
        if start < 0 or html.find(text, start + 1) >= 0:
            continue
        end = start + len(text)
        name = node.tag or ""
        closing = html[end : end + 2 + len(name)].lower()
        after = html[end + 2 + len(name) : end + 3 + len(name)]
        tag_start = html.rfind("<", 0, start)
        if (
            end > stop
            or closing != f"</{name}"
            or (after and after not in _DELIMITERS)
            or "json" in html[tag_start:start].lower()
        ):
            continue
        spans.append((start, end))
    return tuple(sorted(spans))


def check_tree_depth(tree: LexborHTMLParser) -> None:
    """Refuse what the exact scan refuses for depth, read from lexbor's tree (in C, about
    0.2 ms): anywhere in ``<body>``, hidden or not, since trafilatura's lxml drops what is
    nested past its own limit without a word.

    Raises:
        InputError: ``html_too_deep``.
    """
    if tree.css_first(_TOO_DEEP) is not None:
        raise InputError("html_too_deep", f"more than {MAX_DEPTH} nested elements")


def bounded_shape(counts: TagCounts, tree: LexborHTMLParser, html: str) -> PageShape:
    """The shape of a bounded page: figures are upper bounds (``widest``: of lxml's tree, see
    the module docstring), code is read from lexbor."""
    return PageShape(
        depth=counts.elements_bound,
        elements=counts.tags,
        widest=counts.tags,
        code=code_spans(tree, html, counts),
    )
