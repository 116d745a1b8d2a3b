"""Read Markdown back with a real CommonMark parser (markdown-it-py, GFM tables and
strikethrough on), so tests judge our Markdown by what parsers make of it, not by our own reader.

Link targets are taken as written: markdown-it's own URL normalisation and its refusal of some
schemes are switched off, so a target that broke out of its link would show.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token


class _AsWritten(MarkdownIt):
    """Every link target accepted and kept as written."""

    def validateLink(self, url: str) -> bool:
        return True

    def normalizeLink(self, url: str) -> str:
        return url

    def normalizeLinkText(self, link: str) -> str:
        return link


_PARSER = _AsWritten("commonmark").enable(["table", "strikethrough"])

Span = tuple[str, str | None]  # (text, link target or None)


@dataclass(frozen=True)
class Unexpected(Exception):
    """The parser saw something our Markdown must never produce."""

    what: str


def _inline(token: Token) -> tuple[Span, ...]:
    """Text runs and links of one inline token; anything else is structure we never write.

    Adjacent text outside links is one run; each link is one span, however many text
    tokens it holds.
    """
    spans: list[Span] = []
    href: str | None = None
    fresh = False  # a link just opened: its first text starts a new span
    for child in token.children or []:
        if child.type == "text":
            if spans and not fresh and spans[-1][1] == href:
                spans[-1] = (spans[-1][0] + child.content, href)
            else:
                spans.append((child.content, href))
            fresh = False
        elif child.type == "link_open":
            href, fresh = str(child.attrs["href"]), True
        elif child.type == "link_close":
            if fresh:  # a link with no text
                spans.append(("", href))
            href, fresh = None, True
        else:
            raise Unexpected(f"inline {child.type}: {child.content!r}")
    return tuple(spans)


def _image(token: Token) -> tuple[str, str]:
    children = token.children or []
    if len(children) != 1 or children[0].type != "image":
        raise Unexpected(f"paragraph holding {[c.type for c in children]}")
    image = children[0]
    alt = "".join(c.content for c in image.children or [] if c.type == "text")
    if any(c.type != "text" for c in image.children or []):
        raise Unexpected("structure inside an image's alt text")
    return alt, str(image.attrs["src"])


def parse(markdown: str) -> list[tuple[Any, ...]]:
    """Blocks as tuples: ("paragraph", spans), ("heading", level, spans), ("quote", spans),
    ("list", ordered, [spans]), ("code", content), ("table", [[spans]]), ("image", alt, src).

    Raises:
        Unexpected: any construct outside what our Markdown writes.
    """
    tokens = _PARSER.parse(markdown)
    out: list[tuple[Any, ...]] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.type == "paragraph_open":
            inline = tokens[i + 1]
            children = inline.children or []
            if children and children[0].type == "image":
                out.append(("image", *_image(inline)))
            else:
                out.append(("paragraph", _inline(inline)))
            i += 3
        elif t.type == "heading_open":
            out.append(("heading", int(t.tag[1:]), _inline(tokens[i + 1])))
            i += 3
        elif t.type == "blockquote_open":
            body = tokens[i + 1 : i + 5]
            quoted = ["paragraph_open", "inline", "paragraph_close", "blockquote_close"]
            if [b.type for b in body] == quoted:
                out.append(("quote", _inline(body[1])))
                i += 5
            else:
                raise Unexpected(f"quote holding {[b.type for b in body]}")
        elif t.type in ("bullet_list_open", "ordered_list_open"):
            items: list[tuple[Span, ...]] = []
            i += 1
            while tokens[i].type == "list_item_open":
                seq = [x.type for x in tokens[i + 1 : i + 5]]
                if seq != ["paragraph_open", "inline", "paragraph_close", "list_item_close"]:
                    raise Unexpected(f"list item holding {seq}")
                items.append(_inline(tokens[i + 2]))
                i += 5
            if tokens[i].type not in ("bullet_list_close", "ordered_list_close"):
                raise Unexpected(f"list holding {tokens[i].type}")
            if t.type == "ordered_list_open" and t.attrs.get("start", 1) != 1:
                raise Unexpected(f"ordered list starting at {t.attrs['start']}")
            out.append(("list", t.type == "ordered_list_open", items))
            i += 1
        elif t.type == "fence":
            if t.info:
                raise Unexpected(f"fence with info {t.info!r}")
            out.append(("code", t.content))
            i += 1
        elif t.type == "table_open":
            rows: list[list[tuple[Span, ...]]] = []
            i += 1
            while tokens[i].type != "table_close":
                if tokens[i].type == "tr_open":
                    rows.append([])
                elif tokens[i].type == "inline":
                    rows[-1].append(_inline(tokens[i]))
                i += 1
            out.append(("table", rows))
            i += 1
        else:
            raise Unexpected(f"block {t.type}: {t.content!r}")
    return out


def paragraph_texts(markdown: str) -> list[str]:
    """The paragraphs a CommonMark parser reads in ``markdown``, links as their text, white
    space collapsed: what a test compares with the paragraphs it read from the page."""
    return [
        " ".join("".join(text for text, _ in block[1]).split())
        for block in parse(markdown)
        if block[0] == "paragraph"
    ]
