"""Build a block's whitespace-normalized text piece by piece, with exact link offsets.

Offsets are recorded while the text is built, so an anchor's ``start`` never depends on
searching the finished text (which would pick the wrong occurrence of a repeated phrase).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class Span:
    """One anchor inside the block being built: ``[start, end)`` in the block's text."""

    href: str
    start: int
    end: int


@dataclass(slots=True)
class TextBuffer:
    """Collapses whitespace the way ``normalize_space`` does, across inline pieces."""

    parts: list[str] = field(default_factory=list)
    length: int = 0
    need_space: bool = False
    link_href: str | None = None
    link_start: int | None = None
    spans: list[Span] = field(default_factory=list)

    def add(self, chunk: str) -> None:
        """Append raw text; runs of whitespace become one space, ends are trimmed later."""
        words = chunk.split()
        if not words:
            self.need_space = self.need_space or bool(chunk)
            return
        if (self.need_space or chunk[0].isspace()) and self.length:
            self.parts.append(" ")
            self.length += 1
        if self.link_href is not None and self.link_start is None:
            self.link_start = self.length
        text = " ".join(words)
        self.parts.append(text)
        self.length += len(text)
        self.need_space = chunk[-1].isspace()

    def space(self) -> None:
        """A separator that is not text (``<br>`` inside a paragraph)."""
        self.need_space = True

    def open_link(self, href: str) -> None:
        self.close_link()
        self.link_href = href
        self.link_start = None

    def close_link(self) -> None:
        if (
            self.link_href is not None
            and self.link_start is not None
            and self.length > self.link_start
        ):
            self.spans.append(Span(self.link_href, self.link_start, self.length))
        self.link_href = None
        self.link_start = None

    def take(self) -> tuple[str, list[Span]]:
        """Return the text and its anchors, and start a new block (an open link continues)."""
        href = self.link_href
        self.close_link()
        text, spans = "".join(self.parts), self.spans
        self.parts, self.length, self.need_space, self.spans = [], 0, False, []
        if href is not None:
            self.open_link(href)
        return text, spans
