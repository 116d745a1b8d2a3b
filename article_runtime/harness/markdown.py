"""Markdown serialization of the harness's own subset (spec 8.4), and its inverse for grounding.

We only ever emit: ATX headings, paragraphs, ``-``/``1.`` lists, ``>`` quotes, fenced code,
pipe tables, ``[text](url)`` links and ``![alt](src)`` images. Text is escaped so nothing in
an article can turn into Markdown syntax; URLs are escaped so a link target never ends early.
"""

from __future__ import annotations

from collections.abc import Sequence

_INLINE_SPECIALS = "\\`*_[]<>|"
_ESCAPES = str.maketrans({ch: f"\\{ch}" for ch in _INLINE_SPECIALS})
_LINE_START_SPECIALS = frozenset("#>-+=~")
_URL_ESCAPES = str.maketrans({" ": "%20", "(": "%28", ")": "%29", "<": "%3C", ">": "%3E"})


def escape_text(text: str) -> str:
    """Backslash-escape every character that could start Markdown syntax."""
    # Most text has none of the specials: nine C-speed scans beat a per-character translate.
    out = text.translate(_ESCAPES) if any(ch in text for ch in _INLINE_SPECIALS) else text
    if out[:1] in _LINE_START_SPECIALS:
        return "\\" + out
    digits = len(out) - len(out.lstrip("0123456789"))
    if digits and out[digits : digits + 1] in (".", ")"):
        return f"{out[:digits]}\\{out[digits:]}"
    return out


def escape_url(url: str) -> str:
    return url.translate(_URL_ESCAPES)


def link(text: str, url: str) -> str:
    return f"[{escape_text(text)}]({escape_url(url)})"


def image(alt: str, src: str) -> str:
    return f"![{escape_text(alt)}]({escape_url(src)})"


def heading(level: int, inline: str) -> str:
    return f"{'#' * min(max(level, 1), 6)} {inline}"


def list_items(items: Sequence[str], *, ordered: bool) -> str:
    return "\n".join(
        f"{n}. {item}" if ordered else f"- {item}" for n, item in enumerate(items, start=1)
    )


def quote(inline: str) -> str:
    return f"> {inline}"


def code(text: str) -> str:
    longest = run = 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{text}\n{fence}"


def table(rows: Sequence[Sequence[str]]) -> str:
    width = max(len(row) for row in rows)
    padded = [[escape_text(cell) for cell in row] + [""] * (width - len(row)) for row in rows]
    lines = [f"| {' | '.join(padded[0])} |", f"|{' --- |' * width}"]
    lines.extend(f"| {' | '.join(row)} |" for row in padded[1:])
    return "\n".join(lines)


def _closing_bracket_is_escaped(markdown: str, index: int) -> bool:
    slashes = 0
    while index - 1 - slashes >= 0 and markdown[index - 1 - slashes] == "\\":
        slashes += 1
    return slashes % 2 == 1


def split_targets(markdown: str) -> tuple[str, list[str]]:
    """Cut every ``](target)`` out of our Markdown: the prose left over, and the targets."""
    prose: list[str] = []
    targets: list[str] = []
    pos = 0
    while (hit := markdown.find("](", pos)) != -1:
        if _closing_bracket_is_escaped(markdown, hit):
            prose.append(markdown[pos : hit + 2])
            pos = hit + 2
            continue
        end = markdown.find(")", hit + 2)
        if end == -1:
            break
        prose.append(markdown[pos:hit])
        targets.append(markdown[hit + 2 : end])
        pos = end + 1
    prose.append(markdown[pos:])
    return "".join(prose), targets


def plain_text(markdown: str) -> str:
    """Our Markdown back to the text a reader sees: no link targets, escapes or line markers."""
    return unescape(split_targets(markdown)[0])


def unescape(markdown_prose: str) -> str:
    """Drop the escapes and line markers we emit, leaving the text an article's reader sees."""
    lines = []
    for line in markdown_prose.split("\n"):
        stripped = line.lstrip("#>-|` ")
        digits = len(stripped) - len(stripped.lstrip("0123456789"))
        if digits and stripped[digits : digits + 2] == ". ":
            stripped = stripped[digits + 2 :]
        lines.append(_drop_backslashes(stripped))
    return "\n".join(lines)


def _drop_backslashes(text: str) -> str:
    """Keep escaped characters, drop the escapes and our unescaped ``[`` / ``![`` openers."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        slash, bracket = text.find("\\", i), text.find("[", i)
        j = min(k for k in (slash, bracket, n) if k != -1)
        out.append(text[i:j])
        if j == n:
            break
        if text[j] == "\\":
            out.append(text[j + 1 : j + 2])
            i = j + 2
            continue
        if j > i and text[j - 1] == "!":  # an unescaped "![" opens an image
            out[-1] = out[-1][:-1]
        i = j + 1
    return "".join(out)
