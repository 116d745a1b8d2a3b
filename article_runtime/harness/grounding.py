"""Grounding of the assembled article (spec 8.1 step 9, 8.3).

The Markdown is rendered from the assembled document and from nothing else
(``markdown.render``), so grounding checks that document:

- every link target and image source is a kept candidate's;
- each node shows its source whole and nothing else: its pieces, in order, are consecutive
  slices of one source text (a kept block's text after its accepted repairs, or a kept image's
  alt or caption) that together make up all of it. Table cells are the slices between spaces.
  No source is shown twice.

Exact slices, not words: nothing can be joined, split, dropped or invented between the pieces
(``error`` + ``E0382`` is not ``error[E0382]``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence

from article_runtime.harness.document import (
    Code,
    Heading,
    Image,
    ListRun,
    Node,
    Paragraph,
    Piece,
    Quote,
    SourceKey,
    Table,
    urls,
)

__all__ = ["UNGROUNDED_TEXT", "UNGROUNDED_URL", "check_grounding"]

UNGROUNDED_TEXT = "ungrounded_text"
UNGROUNDED_URL = "ungrounded_url"


def _runs(node: Node) -> Iterator[tuple[Sequence[Piece], str]]:
    """Each run of pieces that shows one source, with what may stand between its pieces."""
    match node:
        case Paragraph(inline) | Heading(_, inline) | Quote(inline):
            yield inline, ""
        case ListRun(_, items):
            yield from ((item, "") for item in items)
        case Code(piece):
            yield (piece,), ""
        case Table(rows):
            yield [cell for row in rows for cell in row if cell.text], " "
        case Image(alt, _):
            yield (alt,), ""


def _shows_whole(run: Sequence[Piece], gap: str, source: str) -> bool:
    """Whether ``run`` is consecutive slices of ``source`` covering all of it but for gaps
    made only of the ``gap`` character (table cells are apart by spaces)."""
    pos = 0
    for piece in run:
        if piece.start < pos or source[pos : piece.start].strip(gap):
            return False
        if not source.startswith(piece.text, piece.start):
            return False
        pos = piece.start + len(piece.text)
    return not source[pos:].strip(gap)


def check_grounding(
    document: Sequence[Node], sources: Mapping[SourceKey, str], source_urls: Iterable[str]
) -> tuple[str, str] | None:
    """None when grounded, else ``(reason, offending item)`` for the first violation.

    ``sources``: the kept blocks' repaired texts and kept images' alt and caption, by
    (ID, field); ``source_urls``: the kept link hrefs and image srcs.
    """
    allowed = set(source_urls)
    for url in urls(document):
        if url not in allowed:
            return UNGROUNDED_URL, url
    shown: set[SourceKey] = set()
    for node in document:
        for run, gap in _runs(node):
            if not run:
                continue
            key = run[0].source
            source = sources.get(key)
            if source is None or key in shown or any(p.source != key for p in run):
                return UNGROUNDED_TEXT, f"{key[0]}: {run[0].text[:80]!r}"
            if not _shows_whole(run, gap, source):
                return UNGROUNDED_TEXT, f"{key[0]}: {''.join(p.text for p in run)[:80]!r}"
            shown.add(key)
    return None
