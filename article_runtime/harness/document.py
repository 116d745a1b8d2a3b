"""The article body as assembly builds it, grounding checks it and Markdown renders it.

One representation for all three, so they cannot disagree: every piece of text is a slice of
one source text (a kept block after its accepted repairs, or an image's alt or caption), named
by that source and the slice's offset. Grounding checks the slices and URLs; the Markdown is a
pure function of this document (``markdown.render``) and carries nothing else.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

__all__ = [
    "Code",
    "Document",
    "Heading",
    "Image",
    "Inline",
    "ListRun",
    "Node",
    "Paragraph",
    "Piece",
    "Quote",
    "SourceKey",
    "Table",
    "body_text",
    "pieces",
    "reader_text",
    "urls",
]

SourceKey = tuple[str, str]  # (candidate ID, field): ("b7", "text"), ("i2", "alt")


@dataclass(frozen=True, slots=True)
class Piece:
    """``text`` is ``source_text[start:start + len(text)]``; ``href`` makes it a link's anchor."""

    text: str
    source: SourceKey
    start: int
    href: str | None = None


Inline = tuple[Piece, ...]


@dataclass(frozen=True, slots=True)
class Paragraph:
    inline: Inline


@dataclass(frozen=True, slots=True)
class Heading:
    level: int  # 1-6
    inline: Inline


@dataclass(frozen=True, slots=True)
class Quote:
    inline: Inline


@dataclass(frozen=True, slots=True)
class ListRun:
    """Consecutive kept items of one list: one Markdown list."""

    ordered: bool
    items: tuple[Inline, ...]


@dataclass(frozen=True, slots=True)
class Code:
    piece: Piece


@dataclass(frozen=True, slots=True)
class Table:
    """Rows of cells, each cell one piece (possibly empty); the first row is the header."""

    rows: tuple[tuple[Piece, ...], ...]


@dataclass(frozen=True, slots=True)
class Image:
    alt: Piece
    src: str


Node = Paragraph | Heading | Quote | ListRun | Code | Table | Image
Document = tuple[Node, ...]


def _inline_text(inline: Inline) -> str:
    return "".join(p.text for p in inline)


def _lines(node: Node) -> list[str]:
    """What a reader sees of one node, one line per list item or table row."""
    match node:
        case Paragraph(inline) | Heading(_, inline) | Quote(inline):
            return [_inline_text(inline)]
        case ListRun(_, items):
            return [_inline_text(item) for item in items]
        case Code(piece):
            return [piece.text]
        case Table(rows):
            return [" ".join(cell.text for cell in row if cell.text) for row in rows]
        case Image(alt, _):
            return [alt.text] if alt.text else []


def reader_text(document: Sequence[Node]) -> str:
    """The text a reader sees, one node (list item, table row) a line; image alt included."""
    return "\n".join(line for node in document for line in _lines(node))


def body_text(document: Sequence[Node]) -> str:
    """The kept blocks' text, one a line: what word counts see (images are not body text)."""
    return reader_text([node for node in document if not isinstance(node, Image)])


def _node_pieces(node: Node) -> Iterator[Piece]:
    match node:
        case Paragraph(inline) | Heading(_, inline) | Quote(inline):
            yield from inline
        case ListRun(_, items):
            for item in items:
                yield from item
        case Code(piece):
            yield piece
        case Table(rows):
            for row in rows:
                yield from row
        case Image(alt, _):
            yield alt


def pieces(document: Sequence[Node]) -> Iterator[Piece]:
    """Every piece of text the document shows, in order."""
    for node in document:
        yield from _node_pieces(node)


def urls(document: Sequence[Node]) -> Iterator[str]:
    """Every link target and image source the document shows, in order."""
    for node in document:
        if isinstance(node, Image):
            yield node.src
        else:
            yield from (p.href for p in _node_pieces(node) if p.href is not None)
