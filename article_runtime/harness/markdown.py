"""Markdown serialization of the article document (spec 8.4), and its inverse for readers.

We emit only: ATX headings, paragraphs, ``-``/``*`` and ``1.``/``1)`` lists, ``>`` quotes,
fenced code, pipe tables, ``[text](url)`` links and ``![alt](src)`` images, one construct per
document node, nodes separated by one blank line. Text is inert by construction:

- every ASCII character that can open inline syntax (``\\ ` * _ [ ] < > | ~``) is
  backslash-escaped everywhere, ``&`` wherever it could start a character reference, ``!``
  right before a link, ``#`` everywhere in a heading (a closing `` #`` would be cut);
- what would be block syntax at the start of a node (``#``, ``+``, ``-``, ``=``, ``1.``,
  ``1)``) is backslash-escaped there;
- the controls some reader ends a line at or trims (CR, LF, tab, vertical tab, form feed,
  U+001C-U+001F, U+0085) and the separators U+2028/U+2029 are written as numeric character
  references wherever they stand, so nothing but our own line breaks ends a line; so is any
  whitespace at either end of a node's text, which parsers trim or read as an indent. Other
  controls and format characters have no Markdown meaning and stay as they are;
- U+0000 and lone surrogates, which no Markdown parser keeps, become U+FFFD;
- link targets drop what a browser drops (ASCII tab and newline; C0 and space at the ends),
  percent-encode what cannot stand in a target (spaces, controls, format characters) and
  backslash-escape what could end it early (``( ) < > \\``).

Code is written raw between fences longer than any backtick run inside it (CR becomes LF,
as every parser reads it). ``plain_text`` reads our Markdown back to the text a reader sees.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from article_runtime.harness.document import (
    Code,
    Heading,
    Image,
    Inline,
    ListRun,
    Node,
    Paragraph,
    Piece,
    Quote,
    Table,
)

__all__ = [
    "destination",
    "escape_text",
    "link_target",
    "plain_text",
    "render",
    "split_cells",
    "split_targets",
]

_REPLACEMENT = "&#xFFFD;"
_INLINE_SPECIALS = "\\`*_[]<>|~"
_LINE_START_SPECIALS = frozenset("#+-=")
_DIGITS = "0123456789"
# Controls some reader ends a line at or trims (Python's str.splitlines and str.isspace, JS
# trim, CommonMark line endings), and the line and paragraph separators.
_BREAKING = "".join(ch for ch in map(chr, range(0xA0)) if ch.isspace() and ch != " ")
_BREAKING += "\u2028\u2029"
_ENTITY_NAME = frozenset("#0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _reference(ch: str) -> str:
    return f"&#x{ord(ch):X};"


def _escape_table(extra: str) -> dict[int, str]:
    table: dict[int, str] = {ord(ch): "\\" + ch for ch in _INLINE_SPECIALS + extra}
    table |= {ord(ch): _reference(ch) for ch in _BREAKING}
    table |= dict.fromkeys((0, *range(0xD800, 0xE000)), _REPLACEMENT)
    return table


_TEXT_ESCAPES = _escape_table("")
_HEADING_ESCAPES = _escape_table("#")


def _is_edge_space(ch: str) -> bool:
    """Characters a parser may trim from a line's ends or read as indentation."""
    return ch.isspace() or ch == "\ufeff"


def _edge_references(text: str) -> str:
    return "".join(map(_reference, text))


def _entity_like(after_ampersand: str) -> bool:
    """Whether ``&`` followed by this could read as a character reference (``&amp;``, ``&#35;``)."""
    end = after_ampersand.find(";")
    return end > 0 and all(ch in _ENTITY_NAME for ch in after_ampersand[:end])


def _escape_body(text: str, table: dict[int, str]) -> str:
    if "&" not in text:
        return text.translate(table)
    first, *rest = text.split("&")
    out = [first.translate(table)]
    for part in rest:
        out.append("\\&" if _entity_like(part) else "&")
        out.append(part.translate(table))
    return "".join(out)


def escape_text(text: str, *, lead: bool = True, trail: bool = True, heading: bool = False) -> str:
    """``text`` as inert inline Markdown.

    ``lead``/``trail``: this text begins/ends a node's inline content, so whitespace there is
    written as references (parsers trim it) and, with ``lead``, block syntax is escaped.
    """
    start, end = 0, len(text)
    if lead:
        while start < end and _is_edge_space(text[start]):
            start += 1
    if trail:
        while end > start and _is_edge_space(text[end - 1]):
            end -= 1
    body = _escape_body(text[start:end], _HEADING_ESCAPES if heading else _TEXT_ESCAPES)
    if lead and start == 0:
        body = _guard_line_start(body)
    return _edge_references(text[:start]) + body + _edge_references(text[end:])


def _guard_line_start(escaped: str) -> str:
    """Escape what would open a heading, list, thematic break or setext line at a line start."""
    if escaped[:1] in _LINE_START_SPECIALS:
        return "\\" + escaped
    digits = len(escaped) - len(escaped.lstrip(_DIGITS))
    if digits and escaped[digits : digits + 1] in (".", ")"):
        return f"{escaped[:digits]}\\{escaped[digits:]}"
    return escaped


# --- link targets ---------------------------------------------------------------------------

_C0_OR_SPACE = "".join(chr(cp) for cp in range(0x21))
_TARGET_ESCAPES = frozenset("\\()<>")


def _percent(ch: str) -> str:
    data = ("\ufffd" if "\ud800" <= ch <= "\udfff" else ch).encode("utf-8")
    return "".join(f"%{byte:02X}" for byte in data)


def _unsafe_in_target(ch: str) -> bool:
    return ch == " " or unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zs", "Zl", "Zp")


def link_target(url: str) -> str:
    """The URL as a link target: what a browser follows, with nothing that cannot stand there.

    Like the WHATWG URL parser: C0 controls and spaces at the ends and every ASCII tab or
    newline are dropped; other spaces, controls and format characters are percent-encoded.
    """
    url = url.strip(_C0_OR_SPACE).replace("\t", "").replace("\n", "").replace("\r", "")
    if url.isascii() and url.isprintable() and " " not in url:
        return url
    return "".join(_percent(ch) if _unsafe_in_target(ch) else ch for ch in url)


def destination(url: str) -> str:
    """``link_target(url)`` written so that only its own ``)`` ends it."""
    target = link_target(url)
    if "&" not in target and _TARGET_ESCAPES.isdisjoint(target):
        return target  # most URLs: nothing to escape, no per-character loop
    out: list[str] = []
    for i, ch in enumerate(target):
        if ch in _TARGET_ESCAPES or (ch == "&" and _entity_like(target[i + 1 :])):
            out.append("\\")
        out.append(ch)
    return "".join(out)


# --- nodes ----------------------------------------------------------------------------------


def _inline(inline: Inline, *, heading: bool = False) -> str:
    shown = [p for p in inline if p.text]
    out: list[str] = []
    for n, piece in enumerate(shown):
        if piece.href is not None:
            if out and out[-1].endswith("!"):  # "!" right before "[" would open an image
                out[-1] = out[-1][:-1] + "\\!"
            text = escape_text(piece.text, lead=False, trail=False, heading=heading)
            out.append(f"[{text}]({destination(piece.href)})")
        else:
            first, last = n == 0, n == len(shown) - 1
            out.append(escape_text(piece.text, lead=first, trail=last, heading=heading))
    return "".join(out)


def _code(piece: Piece) -> str:
    text = piece.text.replace("\r\n", "\n").replace("\r", "\n")
    text = "".join("\ufffd" if ch == "\0" or "\ud800" <= ch <= "\udfff" else ch for ch in text)
    longest = run = 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{text}\n{fence}"


def _table(rows: Sequence[Sequence[Piece]]) -> str:
    width = max(len(row) for row in rows)
    cells = [[escape_text(c.text) for c in row] + [""] * (width - len(row)) for row in rows]
    lines = [f"| {' | '.join(cells[0])} |", f"|{' --- |' * width}"]
    lines.extend(f"| {' | '.join(row)} |" for row in cells[1:])
    return "\n".join(lines)


def _list(run: ListRun, alternate: bool) -> str:
    if run.ordered:
        delimiter = ")" if alternate else "."
        return "\n".join(f"{n}{delimiter} {_inline(i)}" for n, i in enumerate(run.items, 1))
    bullet = "*" if alternate else "-"
    return "\n".join(f"{bullet} {_inline(item)}" for item in run.items)


def _node(node: Node, alternate: bool) -> str:
    match node:
        case Paragraph(inline):
            return _inline(inline)
        case Heading(level, inline):
            return f"{'#' * min(max(level, 1), 6)} {_inline(inline, heading=True)}"
        case Quote(inline):
            return f"> {_inline(inline)}"
        case ListRun():
            return _list(node, alternate)
        case Code(piece):
            return _code(piece)
        case Table(rows):
            return _table(rows)
        case Image(alt, src):
            return f"![{escape_text(alt.text, lead=False, trail=False)}]({destination(src)})"


def render(document: Sequence[Node]) -> str:
    """The document as Markdown. Adjacent lists of one kind switch marker, or they would merge."""
    chunks: list[str] = []
    alternate = False
    previous: Node | None = None
    for node in document:
        if isinstance(node, ListRun):
            same_kind = isinstance(previous, ListRun) and previous.ordered == node.ordered
            alternate = not alternate if same_kind else False
        chunks.append(_node(node, alternate))
        previous = node
    return "\n\n".join(chunks) + "\n"


# --- reading our Markdown back --------------------------------------------------------------


def _escaped(markdown: str, index: int) -> bool:
    """Whether the character at ``index`` follows an odd run of backslashes."""
    slashes = 0
    while index - 1 - slashes >= 0 and markdown[index - 1 - slashes] == "\\":
        slashes += 1
    return slashes % 2 == 1


def _target_end(markdown: str, start: int) -> int:
    """Index of the unescaped ``)`` closing a target that starts at ``start``, or -1."""
    i = start
    while i < len(markdown):
        ch = markdown[i]
        if ch == "\\":
            i += 2
            continue
        if ch == ")":
            return i
        i += 1
    return -1


def split_targets(markdown: str) -> tuple[str, list[str]]:
    """Cut every ``](target)`` out of our Markdown: the prose left over, and the targets."""
    prose: list[str] = []
    targets: list[str] = []
    pos = 0
    while (hit := markdown.find("](", pos)) != -1:
        if _escaped(markdown, hit):
            prose.append(markdown[pos : hit + 2])
            pos = hit + 2
            continue
        end = _target_end(markdown, hit + 2)
        if end == -1:
            break
        prose.append(markdown[pos:hit])
        targets.append(markdown[hit + 2 : end])
        pos = end + 1
    prose.append(markdown[pos:])
    return "".join(prose), targets


def _decode_reference(text: str, i: int) -> tuple[str, int] | None:
    """Our ``&#xHEX;`` at ``i``: (character, index after it), or None."""
    if not text.startswith("&#x", i):
        return None
    end = text.find(";", i + 3)
    digits = text[i + 3 : end] if end != -1 else ""
    if not digits or len(digits) > 6 or digits.strip("0123456789abcdefABCDEF"):
        return None
    value = int(digits, 16)
    return (chr(value) if value <= 0x10FFFF else "\ufffd"), end + 1


def _inline_text(markdown: str) -> str:
    """Inline Markdown we wrote back to its text: escapes and references decoded, link
    brackets and targets dropped."""
    out: list[str] = []
    i, n = 0, len(markdown)
    while i < n:
        ch = markdown[i]
        if ch == "\\" and i + 1 < n:
            out.append(markdown[i + 1])
            i += 2
        elif ch == "&" and (ref := _decode_reference(markdown, i)) is not None:
            out.append(ref[0])
            i = ref[1]
        elif ch == "!" and markdown.startswith("![", i):
            i += 2
        elif ch == "[":
            i += 1
        elif ch == "]" and markdown.startswith("](", i):
            end = _target_end(markdown, i + 2)
            i = n if end == -1 else end + 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def split_cells(row: str) -> list[str]:
    """A table row's cells, cut at unescaped pipes (cells escape theirs), padding kept."""
    cells: list[str] = []
    start, i = 0, 0
    while i < len(row):
        if row[i] == "\\":
            i += 2
            continue
        if row[i] == "|":
            cells.append(row[start:i])
            start = i + 1
        i += 1
    cells.append(row[start:])
    return cells[1:-1] if len(cells) > 2 else cells


def _list_item(line: str) -> str | None:
    """The content of a list item line we wrote, or None when the line is not one."""
    if line[:2] in ("- ", "* "):
        return line[2:]
    digits = len(line) - len(line.lstrip(_DIGITS))
    if digits and line[digits : digits + 2] in (". ", ") "):
        return line[digits + 2 :]
    return None


def _chunk_text(lines: list[str]) -> list[str]:
    first = lines[0]
    if first.startswith("```"):
        closed = len(lines) > 1 and lines[-1] == first
        return lines[1:-1] if closed else lines[1:]
    if first.startswith("| "):
        rows = [lines[0], *lines[2:]]
        cells = ([c.removeprefix(" ").removesuffix(" ") for c in split_cells(r)] for r in rows)
        return [" ".join(t for t in map(_inline_text, row) if t) for row in cells]
    if first.startswith("#"):
        return [_inline_text(first.lstrip("#").removeprefix(" "))]
    if first.startswith("> "):
        return [_inline_text(first[2:])]
    if first.startswith("!["):
        alt = _inline_text(split_targets(first)[0])
        return [alt] if alt else []
    items = [_list_item(line) for line in lines]
    if all(item is not None for item in items):
        return [_inline_text(item or "") for item in items]
    return [_inline_text(line) for line in lines]


def plain_text(markdown: str) -> str:
    """Our Markdown back to the text a reader sees: one line per paragraph, heading, quote,
    list item, table row and code line; link targets, escapes and markers gone."""
    chunks: list[list[str]] = []
    current: list[str] = []
    fence: str | None = None
    for line in markdown.split("\n"):
        if fence is not None:
            current.append(line)
            if line == fence:
                fence = None
            continue
        if not line:
            if current:
                chunks.append(current)
                current = []
            continue
        if not current and line.startswith("```"):
            fence = line
        current.append(line)
    if current:
        chunks.append(current)
    return "\n".join(line for chunk in chunks for line in _chunk_text(chunk))
