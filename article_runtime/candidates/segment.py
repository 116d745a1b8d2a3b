"""Segment a parsed page into the universe of text blocks, links and common images.

One iterative walk over the lexbor tree (no recursion, depth capped). Every piece of visible
text lands in exactly one block, including text sitting directly in a ``div``, separated by
``<br>`` or laid out in table cells: a block the walk loses can never be selected later.
``<noscript>`` is read too: what a reader without scripts sees, and on pages a script renders
(Blogger's, among others) the only copy of the article in the HTML.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from selectolax.lexbor import LexborHTMLParser, LexborNode

from article_runtime.candidates.depth import MAX_DEPTH
from article_runtime.candidates.images import image_url
from article_runtime.candidates.textbuf import Span, TextBuffer
from article_runtime.candidates.urls import absolute_url, document_base
from article_runtime.errors import InputError
from article_runtime.model.candidates import BlockType

_SKIP = frozenset(
    [
        "script",
        "style",
        "template",
        "svg",
        "math",
        "head",
        "iframe",
        "object",
        "embed",
        "canvas",
        "video",
        "audio",
        "input",
        "select",
        "textarea",
        "button",
        "option",
        "optgroup",
        "datalist",
        "meter",
        "progress",
        "map",
        "rt",  # ruby annotations (pronunciation), not article text
        "rp",
    ]
)
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_BLOCK = frozenset(
    [
        "address",
        "article",
        "aside",
        "blockquote",
        "body",
        "center",
        "dd",
        "details",
        "dialog",
        "dir",
        "div",
        "dl",
        "dt",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hgroup",
        "hr",
        "html",
        "li",
        "main",
        "menu",
        "nav",
        "ol",
        "p",
        "section",
        "summary",
        "table",
        "tbody",
        "thead",
        "tfoot",
        "tr",
        "td",
        "th",
        "caption",
        "ul",
        "legend",
    ]
)
_FLOW = frozenset(
    [
        "p",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "li",
        "dt",
        "dd",
        "figcaption",
        "summary",
        "caption",
        "legend",
    ]
)
_LISTS = frozenset({"ul", "ol", "menu"})
# Block elements whose own text is one unit; never a container of other blocks.
_NOT_CONTAINER = _FLOW | _LISTS | {"hr", "tr", "tbody", "thead", "tfoot", "dl"}
_BOILER_TAGS = frozenset({"nav", "aside", "menu"})
_BOILER_ROLES = frozenset({"navigation", "contentinfo", "banner", "search", "menu", "menubar"})
_SECTIONING = frozenset({"article", "main", "section"})
# What an element's start asks of the walk: skip its subtree, walk its children, or also
# close a block frame or a link at its end.
_Opens = Literal["skip", "children", "frame", "link"]
_NESTED_IN_TABLE = "table, div, p, ul, ol, h1, h2, h3, h4, h5, h6, blockquote, section, article"


@dataclass(slots=True)
class RawBlock:
    """A block before pruning and final numbering; extra fields feed the heuristics."""

    index: int
    type: BlockType
    text: str
    container: int
    boiler: bool
    level: int | None = None
    list_key: int | None = None
    ordered: bool | None = None
    rows: list[list[str]] | None = None
    section: int | None = None
    link_chars: int = 0
    extractors: list[str] = field(default_factory=list)


class RawLink(NamedTuple):  # built hundreds of times a page: 1.6 µs cheaper than a dataclass
    text: str
    href: str
    block: int
    start: int


class RawImage(NamedTuple):
    src: str
    alt: str
    caption: str
    after: int | None


@dataclass(slots=True)
class Segmentation:
    blocks: list[RawBlock]
    links: list[RawLink]
    images: list[RawImage]
    container_parent: dict[int, int | None]


@dataclass(slots=True)
class _Frame:
    """The context an open block-level element gives to the text inside it."""

    kind: BlockType
    container: int
    boiler: bool
    flow: bool
    level: int | None = None
    list_key: int | None = None
    ordered: bool | None = None
    caption: str = ""
    sectioning: bool = False


def _hidden(attrs: dict[str, Any], depth: int) -> bool:
    """Hidden from readers. ``hidden`` on a child of ``<body>`` is not trusted: streaming
    server renderers park the real content there until a script reveals it."""
    if "hidden" in attrs and depth != 1:
        return True
    aria = attrs.get("aria-hidden")
    if aria and aria.strip().lower() == "true":
        return True
    style = attrs.get("style")
    if style:
        compact = "".join(style.lower().split())
        return "display:none" in compact or "visibility:hidden" in compact
    return False


def _data_table(node: LexborNode) -> list[list[str]] | None:
    """Rows of cell texts when the table holds data; None for a layout table."""
    own = node.mem_id
    if any(inner.mem_id != own for inner in node.css(_NESTED_IN_TABLE)):
        return None
    rows: list[list[str]] = []
    for row in node.css("tr"):
        cells = [visible_text(cell) for cell in row.css("td, th")]
        if any(cells):
            rows.append(cells)
    return rows


class _Walker:
    def __init__(self, base: str | None) -> None:
        self.base = base
        self.buf = TextBuffer()
        self.blocks: list[RawBlock] = []
        self.links: list[RawLink] = []
        self.images: list[RawImage] = []
        self.container_parent: dict[int, int | None] = {}
        self.next_container = 0
        self.next_list = 0
        self.headings: list[tuple[int, int]] = []  # (level, block index) of open sections
        self.frames = [_Frame("paragraph", self._new_container(None), False, False)]

    def _new_container(self, parent: int | None) -> int:
        self.next_container += 1
        self.container_parent[self.next_container] = parent
        return self.next_container

    def _section_for(self, level: int | None) -> int | None:
        if level is None:
            return self.headings[-1][1] if self.headings else None
        while self.headings and self.headings[-1][0] >= level:
            self.headings.pop()
        return self.headings[-1][1] if self.headings else None

    def emit(
        self,
        frame: _Frame,
        kind: BlockType,
        text: str,
        rows: list[list[str]] | None = None,
        spans: list[Span] | None = None,
    ) -> None:
        index = len(self.blocks)
        level = frame.level if kind == "heading" else None
        section = self._section_for(level)
        block = RawBlock(
            index, kind, text, frame.container, frame.boiler, level, rows=rows, section=section
        )
        if kind == "list_item":
            block.list_key, block.ordered = frame.list_key, frame.ordered
        if level is not None:
            self.headings.append((level, index))
        for span in spans or ():
            self.links.append(RawLink(text[span.start : span.end], span.href, index, span.start))
            block.link_chars += span.end - span.start
        self.blocks.append(block)

    def flush(self, frame: _Frame) -> None:
        if not self.buf.length:
            return  # nothing since the last block: taking would change nothing
        text, spans = self.buf.take()
        self.emit(frame, frame.kind, text, spans=spans)

    def image(self, frame: _Frame, attrs: dict[str, Any]) -> None:
        if frame.boiler:
            return
        src = image_url(attrs, self.base)
        if src is None:
            return
        after = len(self.blocks) if self.buf.length else len(self.blocks) - 1
        alt = " ".join((attrs.get("alt") or "").split())
        self.images.append(RawImage(src, alt, frame.caption, after if after >= 0 else None))

    def child_frame(self, node: LexborNode, tag: str, attrs: dict[str, Any], up: _Frame) -> _Frame:
        frame = _Frame(
            up.kind,
            up.container,
            up.boiler,
            tag in _FLOW,
            up.level,
            up.list_key,
            up.ordered,
            up.caption,
            up.sectioning or tag in _SECTIONING,
        )
        role = attrs.get("role")
        if (
            tag in _BOILER_TAGS
            or (role and role.strip().lower() in _BOILER_ROLES)
            or (tag in {"header", "footer"} and not up.sectioning)
        ):
            frame.boiler = True
        if tag not in _NOT_CONTAINER:
            frame.container = self._new_container(up.container)
        if tag in _HEADINGS:
            frame.kind, frame.level = "heading", _HEADINGS[tag]
        elif tag == "li":
            frame.kind = "list_item"
            if up.kind != "list_item" or up.list_key is None:
                self.next_list += 1
                frame.list_key, frame.ordered = self.next_list, False
        elif tag in _LISTS:
            self.next_list += 1
            frame.list_key, frame.ordered = self.next_list, tag == "ol"
            frame.kind = "list_item"
        elif tag == "blockquote":
            frame.kind = "quote"
        elif tag == "figcaption":
            frame.kind = "figure_caption"
        elif tag == "figure":
            caption = node.css_first("figcaption")
            frame.caption = " ".join(caption.text(deep=True).split()) if caption else ""
        return frame

    def start(self, node: LexborNode, tag: str | None, depth: int) -> _Opens:
        """Handle an element's start tag; say what its end tag will close."""
        if tag is None or tag.startswith("-") or tag in _SKIP:
            return "skip"
        if depth > MAX_DEPTH:
            raise InputError("html_too_deep", f"element nested {depth} levels deep")
        attrs = node.attributes
        if _hidden(attrs, depth):
            return "skip"
        frame = self.frames[-1]
        if tag == "br":
            if frame.flow:
                self.buf.space()
            else:
                self.flush(frame)
            return "skip"
        if tag == "img":
            self.image(frame, attrs)
            return "skip"
        if tag == "pre" or (tag == "table" and not frame.boiler):
            rows = _data_table(node) if tag == "table" else None
            if tag == "pre" or rows is not None:
                self.flush(frame)
                if tag == "pre":
                    text = (node.text(deep=True) or "").strip()
                    if text:
                        self.emit(frame, "code", text)
                elif rows:
                    text = " ".join(" ".join(c for c in row if c) for row in rows)
                    self.emit(frame, "table", " ".join(text.split()), rows=rows)
                return "skip"
        if tag in _BLOCK or "-" in tag:
            self.flush(frame)
            self.frames.append(self.child_frame(node, tag, attrs, frame))
            return "frame"
        if tag == "a":
            href = absolute_url(attrs.get("href"), self.base)
            if href is not None:
                self.buf.open_link(href)
                return "link"
        return "children"

    def end(self, opened: _Opens) -> None:
        if opened == "link":
            self.buf.close_link()
        else:
            self.flush(self.frames.pop())

    def walk(self, root: LexborNode, depth: int = 0, *, inside: bool = False) -> None:
        """Walk ``root`` (``<body>``: depth 0), or only what is ``inside`` it, and flush."""
        body = self.frames[0]
        stack: list[tuple[LexborNode, int, bool]] = [(root, depth, False)]
        if inside:
            stack = [(child, depth + 1, False) for child in reversed(list(root.iter(True)))]
        while stack:
            node, depth, leaving = stack.pop()
            tag = node.tag
            if leaving:
                self.end("link" if tag == "a" else "frame")
                continue
            if tag == "-text":
                if node.is_empty_text_node:  # indentation between tags: most text nodes
                    self.buf.space()
                else:
                    self.buf.add(node.text_content or "")
                continue
            opens = self.start(node, tag, depth)
            if opens == "skip":
                continue
            if opens != "children":
                stack.append((node, depth, True))
            child = node.last_child
            while child is not None:
                stack.append((child, depth + 1, False))
                child = child.prev
        self.flush(body)


def visible_text(node: LexborNode) -> str:
    """The text a reader sees in ``node``, as its blocks give it, joined by a space.

    The same walk as ``segment``, so what separates words there separates them here (a
    ``<br>`` or a block inside a heading) and what it leaves out (scripts, hidden elements)
    is left out: lexbor's text content runs "Flood closes<br>the bridge" together.
    """
    walker = _Walker(None)
    # what is inside it only: the caller chose the element (a ``rel=author`` link hidden for
    # machines is metadata as a ``<meta>`` is); below <body>, ``hidden`` is trusted
    walker.walk(node, depth=1, inside=True)
    return " ".join(block.text for block in walker.blocks)


def segment(tree: LexborHTMLParser, page_url: str | None) -> Segmentation:
    """Every visible text block of the page, with links and common images, in document order.

    Raises:
        InputError: ``html_too_deep`` when elements nest beyond ``MAX_DEPTH``.
    """
    base_node = tree.css_first("base[href]")
    base = document_base(base_node.attributes.get("href") if base_node else None, page_url)
    walker = _Walker(base)
    root = tree.body or tree.root
    if root is not None:
        walker.walk(root)
    return Segmentation(walker.blocks, walker.links, walker.images, walker.container_parent)
