"""The data fence: article text may never leave ``<article_data>`` nor draw a line of its own.

A model reads what it sees, not code points: ``</arti\\u00adcle_data>`` (a soft hyphen
inside), ``</article_data\\u200b>``, ``<\\u2060/article_data>`` and the fullwidth
``＜／ＡＲＴＩＣＬＥ＿ＤＡＴＡ＞`` all read as the closing tag. So the tag is looked for
in the text as a reader sees it: hidden characters skipped (Unicode format characters,
default-ignorable code points such as soft hyphen, zero-width space, word joiner and variation
selectors, and controls other than whitespace, all by property through ICU), the rest folded
by NFKC_Casefold (case, width and compatibility forms) and decomposed, so a mark after the
name does not hide it.
"""

from __future__ import annotations

import functools

import icu

__all__ = ["DATA_CLOSE", "DATA_OPEN", "fence"]

DATA_OPEN = "<article_data>"
DATA_CLOSE = "</article_data>"
_NAME = "article_data"

# Characters that start a new line for a reader (str.splitlines) besides the data format's
# own "\n": written as escapes, so article text cannot begin a line of its own inside the
# fence (a fake "# fixed decisions" or "b99: ..." line).
_LINE_BREAKS = "\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
_ESCAPED = str.maketrans({ch: f"\\u{ord(ch):04x}" for ch in _LINE_BREAKS})

_HIDDEN = icu.UnicodeSet("[[:Cf:][:Default_Ignorable_Code_Point:][[:Cc:]-[:White_Space:]]]")
_HIDDEN.freeze()
_NFKC_CF = icu.Normalizer2.getNFKCCasefoldInstance()
_NFD = icu.Normalizer2.getNFDInstance()


def _hidden(ch: str) -> bool:
    return bool(_HIDDEN.contains(ch))


@functools.lru_cache(maxsize=4096)
def _fold(ch: str) -> str:
    """One visible character as a reader compares it: NFKC_Casefold, then decomposed."""
    return str(_NFD.normalize(_NFKC_CF.normalize(ch)))


def _may_hold_tag(data: str) -> bool:
    """False when no reading of ``data`` holds the fence's name: one pass in ICU's C code,
    so text that never names the fence (nearly all) costs no loop in Python."""
    text = icu.UnicodeString(data)
    if _HIDDEN.span(text, icu.USetSpanCondition.SPAN_NOT_CONTAINED) < text.length():
        return True  # hidden characters: read it character by character
    return _NAME in str(_NFD.normalize(_NFKC_CF.normalize(text)))


def _seen(data: str) -> tuple[str, list[int]]:
    """The text as a reader sees it, and for each of its characters the index in ``data`` of
    the character it comes from."""
    view: list[str] = []
    where: list[int] = []
    for index, ch in enumerate(data):
        if _hidden(ch):
            continue
        folded = _fold(ch)
        view.append(folded)
        where.extend([index] * len(folded))
    return "".join(view), where


def _tag_opens(data: str) -> list[int]:
    """Indices in ``data`` of each ``<`` that opens a tag named like the fence, in any case,
    width and spacing (``</ARTICLE_DATA>``, ``< /article_data >``), hidden characters aside."""
    if not _may_hold_tag(data):
        return []
    view, where = _seen(data)
    opens: list[int] = []
    at = view.find(_NAME)
    while at >= 0:
        before = at - 1
        while before >= 0 and (view[before] == "/" or view[before].isspace()):
            before -= 1
        if before >= 0 and view[before] == "<" and where[before] not in opens:
            opens.append(where[before])
        at = view.find(_NAME, at + len(_NAME))
    return sorted(opens)


def fence(data: str) -> str:
    """Article text, made unable to leave or redraw the data section (spec 5.3).

    A ``<`` (or a form of it, such as ``＜``) that opens a tag named like the fence is written
    ``&lt;``; line breaks other than ``\\n`` are written as JSON-style escapes (``\\u2028``).
    """
    if any(ch in data for ch in _LINE_BREAKS):
        data = data.translate(_ESCAPED)
    opens = _tag_opens(data)
    if not opens:
        return data
    pieces: list[str] = []
    start = 0
    for index in opens:
        pieces.extend((data[start:index], "&lt;"))
        start = index + 1
    pieces.append(data[start:])
    return "".join(pieces)
