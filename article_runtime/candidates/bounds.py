"""A cheap upper bound on what lexbor builds, so most pages skip ``depth.scan_page``.

The exact pre-scan (``depth.py``) models the tree builder token by token: about 5 ms of a
median page's 25. Most pages hold too few tags for lexbor to be slow or huge on them whatever
their nesting, and that can be seen from a count of tag names (under 1 ms):

- every element lexbor builds comes from a ``<`` (a start tag, or the few it implies: html,
  head, body, tbody, tr, colgroup; a ``</p>`` or ``</br>`` without its start): at most
  ``3 T + 3`` for ``T`` characters ``<``;
- the tree builder reopens the active formatting elements after the last marker (before a
  start tag or text) only when one of them was closed since it last did, and only a tag
  closes one: at most ``T + 1`` times, each at most ``F + 1`` elements (``F`` formatting
  start tags other than ``<a>``, plus the one ``<a>`` the list can hold after a marker); and
  as the list keeps at most three entries of the same name and attributes after a marker,
  ``F`` is at most 3 times the number of distinct formatting start tags;
- each adoption agency (``E``: formatting end tags, ``<a>`` and ``<nobr>`` start tags) runs
  its outer loop at most 8 times, each creating one clone of the formatting element and at
  most 3 in the inner loop: at most ``32 E``.

A page with at most ``MAX_TAGS`` tags whose bound stays within ``MAX_ELEMENTS`` is parsed
directly: lexbor's parse is then bounded (it is quadratic only in depth, and depth is at most
the element count), and too deep nesting is refused from lexbor's own tree
(``check_tree_depth``).
``test_bounds`` generates hostile markup and checks that neither lexbor's tree nor the exact
model ever exceeds the bound, and that candidates do not change.
"""

from __future__ import annotations

from collections import Counter
from operator import itemgetter
from typing import NamedTuple

from selectolax.lexbor import LexborHTMLParser

from article_runtime.candidates.depth import MAX_DEPTH, MAX_ELEMENTS
from article_runtime.errors import InputError

__all__ = [
    "MAX_TAGS",
    "TagCounts",
    "check_tree_depth",
    "count_tags",
]

MAX_TAGS = 5_000
"""Past this many ``<`` the exact scan runs whatever the bound says: it keeps lexbor's
quadratic cost in depth small."""

_FORMATTING = frozenset(
    ("b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike", "strong", "tt", "u")
)
_ADOPTING_STARTS = frozenset(("a", "nobr"))
_ADOPTING_ENDS = _FORMATTING | {"a"}
_DELIMITERS = " \t\n\f\r/>"
_HEAD = 8  # "/strike>" and "/strong>": the longest heads that name a counted tag
_HEAD_OF = itemgetter(slice(_HEAD))
_VOID = (
    "area base basefont bgsound br col embed frame hr image img input keygen link meta param "
    "source track wbr"
)
# An element opened (not void) 201 levels inside <body> (or <frameset>): what the exact
# scan refuses.
_TOO_DEEP = ":root > *" + " > *" * MAX_DEPTH + f" > *:not({', '.join(_VOID.split())})"


class TagCounts(NamedTuple):
    """What the bounds are computed from."""

    tags: int  # "<" characters
    formatting: int  # formatting start tags other than <a>
    adoptions: int  # formatting end tags, <a> and <nobr> start tags
    identities: int  # formatting elements the tree builder can tell apart (``_identities``)

    @property
    def reopened(self) -> int:
        """The most formatting elements one reconstruction reopens: the list holds at most 3
        of each identity after the last marker, and one ``<a>``."""
        return min(self.formatting, 3 * self.identities) + 1

    @property
    def elements_bound(self) -> int:
        t = self.tags
        return 3 * t + 3 + 32 * self.adoptions + (t + 1) * self.reopened

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
    parts = html.split("<")
    heads = Counter(map(_HEAD_OF, parts[1:]))  # map with a C getter: no Python frame a tag
    formatting = adoptions = 0
    formatting_heads: set[str] = set()
    for head, count in heads.items():
        if head.startswith("/"):
            if _name(head[1:]) in _ADOPTING_ENDS:
                adoptions += count
            continue
        name = _name(head)
        if name in _FORMATTING and name != "a":
            formatting += count
            formatting_heads.add(head)
        if name in _ADOPTING_STARTS:
            adoptions += count
    counts = TagCounts(len(parts) - 1, formatting, adoptions, formatting)
    if counts.bounded or counts.tags > MAX_TAGS:
        return counts
    tags = [part for part in parts[1:] if part[:_HEAD] in formatting_heads]
    return counts._replace(identities=_identities(tags))


def _identities(tags: list[str]) -> int:
    """How many formatting elements the tree builder may tell apart, at most: it compares
    name and attributes (the "Noah's Ark" clause), and tags of the same text have both the
    same. A tag whose end is not plainly its first ``>`` (a quote before it, or none in
    reach) counts as one of a kind."""
    same: set[str] = set()
    alone = 0
    for tag in tags:
        end = tag.find(">")
        text = tag[:end]
        if end < 0 or '"' in text or "'" in text:
            alone += 1
        else:
            same.add(text)
    return len(same) + alone


def check_tree_depth(tree: LexborHTMLParser) -> None:
    """Refuse what the exact scan refuses for depth, read from lexbor's tree (in C, about
    0.2 ms): anywhere in ``<body>`` or ``<frameset>``, hidden or not, since trafilatura's
    lxml drops what is nested past its own limit without a word.

    Raises:
        InputError: ``html_too_deep``.
    """
    if tree.css_first(_TOO_DEEP) is not None:
        raise InputError("html_too_deep", f"more than {MAX_DEPTH} nested elements")
