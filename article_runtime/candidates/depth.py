"""Refuse pathologically deep HTML before the parser sees it, by counting what it will build.

lxml (and so trafilatura) silently drops everything nested deeper than libxml2's limit of
255 elements: measured here, a paragraph at depth 255 vanishes without an error. lexbor parses
deep nesting of block elements in quadratic time (``<div>`` x 40 000: 1.5 s; 100 000: ~10 s;
5 MiB of ``<div/>``: minutes). So the page is refused before any parse when the parser's stack
of open elements would grow beyond ``MAX_DEPTH``.

Counting start tags is not enough: ``<div/>`` opens a div (HTML ignores the slash on
non-void elements), ``<rt>`` outside ``<ruby>`` nests, ``<template>`` and ``<noscript>``
content is parsed, while ``<p><p>``, ``<li><li>`` and an unclosed ``<b>`` closed by its
block do not nest, and comments and raw text are no markup at all. So this module runs a
small model of the HTML tree builder's stack (WHATWG "in body", scopes, implied end tags,
foreign content), fed by an exact tokenization of tag boundaries: a ``<!--`` or
``<script>`` inside a quoted attribute is text, and a ``>`` there does not end the tag.
The model errs towards more depth where it simplifies (adoption agency, table foster
parenting, ``<select>``), so the DOM walk's exact check stays the final word.

Each token costs O(1) amortized: scope questions are answered from per-name and per-scope
lists of stack positions instead of walking the stack.
"""

from __future__ import annotations

from collections import defaultdict
from typing import NamedTuple

from article_runtime.errors import InputError

__all__ = [
    "MAX_DEPTH",
    "MAX_ELEMENTS",
    "PageShape",
    "check_depth",
    "scan_page",
]

MAX_DEPTH = 200
MAX_ELEMENTS = 100_000
"""20x the most of 905 real article pages (about 5 000). Past it the page is refused: the DOM
walk, pruning and the harness cost about 40 µs per text block, and a page this size is no
article a cheap model could read in one call anyway."""

_WS = " \t\n\f\r"
_NAME_END = frozenset(_WS + "/>")


def _set(names: str) -> frozenset[str]:
    return frozenset(names.split())


_VOID = _set(
    "area base basefont bgsound br col embed frame hr image img input keygen link meta param "
    "source track wbr"
)
_RAW_TEXT = _set("script style textarea title xmp iframe noembed noframes")
_IGNORED_IN_BODY = _set("html body head frameset frame")
_TABLE_SECTIONS = _set("tbody thead tfoot")
_TABLE_PARTS = _TABLE_SECTIONS | _set("tr td th caption colgroup")
_HEADINGS = _set("h1 h2 h3 h4 h5 h6")
_CLOSES_P = _HEADINGS | _set(
    "address article aside blockquote center details dialog dir div dl fieldset figcaption "
    "figure footer header hgroup main menu nav ol p search section summary ul pre listing "
    "form hr xmp"
)
_FORMATTING = _set("a b big code em font i nobr s small strike strong tt u")
_SPECIAL = _set(
    "address applet area article aside base basefont bgsound blockquote body br button caption "
    "center col colgroup dd details dir div dl dt embed fieldset figcaption figure footer form "
    "frame frameset h1 h2 h3 h4 h5 h6 head header hgroup hr html iframe img input keygen li "
    "link listing main marquee menu meta nav noembed noframes noscript object ol p param "
    "plaintext pre script search section select source style summary table tbody td template "
    "textarea tfoot th thead title tr track ul wbr xmp"
)
# MathML and SVG elements that are special, scope boundaries and integration points: HTML
# is parsed inside them.
_INTEGRATION = {
    "math": _set("mi mo mn ms mtext annotation-xml"),
    "svg": _set("foreignobject desc title"),
}
_INTEGRATION_POINTS = frozenset(
    f"{ns}:{name}" for ns, names in _INTEGRATION.items() for name in names
)
_DEFAULT_SCOPE = _set("applet caption html table td th marquee object template select")
_BREAKOUT = _set(
    "b big blockquote body br center code dd div dl dt em embed h1 h2 h3 h4 h5 h6 head hr i img "
    "li listing menu meta nobr ol p pre ruby s small span strong strike sub sup table tt u ul "
    "var"
)
_RUBY_IMPLIED = _set("rb rp rt rtc")
_IMPLIED_END = _RUBY_IMPLIED | _set("dd dt li optgroup option p")
_FOREIGN_ROOTS = _set("svg math")
# Scope kinds: which boundary elements stop the search for an element "in scope".
_SCOPES: dict[str, frozenset[str]] = {
    "default": _DEFAULT_SCOPE,
    "button": _DEFAULT_SCOPE | {"button"},
    "list": _DEFAULT_SCOPE | {"ol", "ul"},
    "table": _set("html table template"),
}
_MARKERS = _set("applet object marquee template td th caption")
# Start tags after which the tree builder does not reconstruct formatting elements first.
_NO_RECONSTRUCT = (
    _CLOSES_P
    | _IGNORED_IN_BODY
    | _RUBY_IMPLIED
    | _TABLE_PARTS
    | _set("li dd dt table template textarea iframe noembed noframes plaintext")
    | _set("script style title")
)

# Shortcuts, taken first when the current node is HTML; every rule in order stays the
# reference (``_start_any``, ``_end_any``), and a property test holds the two equal.
# Start tags whose whole effect is "close an open p, then open": most block elements. Those
# whose whole effect is "reconstruct formatting, open (a marker for applet, object,
# marquee)": every name no rule of ``_start`` names. An end tag of the current node pops it,
# unless it is one of ``_END_NAMED``.
_BLOCK_START = _CLOSES_P - _HEADINGS - _VOID - _MARKERS - {"form"}
_END_NAMED = _FORMATTING | _MARKERS | {"br", "form"}
_NAMED_IN_START = (
    _set("input keygen textarea select a nobr button option optgroup svg math col form li dd dt")
    | _NO_RECONSTRUCT
    | _IGNORED_IN_BODY
    | _VOID
    | _FORMATTING
    | _CLOSES_P
    | _RUBY_IMPLIED
    | _TABLE_PARTS
    | _RAW_TEXT
    | {"plaintext"}
)


class _Stack:
    """The stack of open elements inside ``<body>`` and the list of active formatting elements.

    Names, and where each name and each scope boundary sits, so every question the tree
    builder asks is a list lookup; each element gets a serial number so the formatting list
    can tell which of its entries are still open.
    """

    def __init__(self, limit: int, max_elements: int = MAX_ELEMENTS) -> None:
        self.limit = limit
        self.max_elements = max_elements
        self.built = 0  # every element the parser creates, reopened formatting ones too
        self.names: list[str] = []
        self.foreign: list[str] = []  # the namespace: "" for HTML, else "svg" or "math"
        self.serials: list[int] = []
        self.groups: list[tuple[list[int], ...]] = []  # the position lists each element is in
        self.open: set[int] = set()
        self.at: dict[str, list[int]] = defaultdict(list)
        self.bounds: dict[str, list[int]] = {kind: [] for kind in _SCOPES}
        self.special: list[int] = []  # for "any other end tag"
        self.li_stops: list[int] = []  # special elements but address, div, p
        self.html: list[int] = []  # elements in the HTML namespace
        self.formatting: list[_Entry | None] = []  # None is a marker
        self.next_serial = 0
        self.deepest = 0
        self.form_open = False  # the parser's "form element pointer" is set
        self._groups: dict[tuple[str, str], tuple[list[int], ...]] = {}

    def _groups_of(self, name: str, foreign: str) -> tuple[list[int], ...]:
        """The position lists an element of this name and namespace belongs to (cached)."""
        key = (name, foreign)
        groups = self._groups.get(key)
        if groups is None:
            special = name in _INTEGRATION[foreign] if foreign else name in _SPECIAL
            found = [self.at[f"{foreign}:{name}" if foreign else name]]
            for kind, boundary in _SCOPES.items():
                if (foreign and special and kind != "table") or (not foreign and name in boundary):
                    found.append(self.bounds[kind])
            if special:
                found.append(self.special)
                if name not in ("address", "div", "p"):
                    found.append(self.li_stops)
            if not foreign:
                found.append(self.html)
            groups = self._groups[key] = tuple(found)
        return groups

    def push(self, name: str, foreign: str = "", formatting: bool = False) -> int:
        """Open an element; a formatting one gets a serial number (else -1), so the list of
        active formatting elements can tell whether its entries are still open."""
        names = self.names
        index = len(names)
        if index >= self.limit:
            raise InputError("html_too_deep", f"more than {self.limit} nested elements")
        self._build()
        groups = self._groups.get((name, foreign)) or self._groups_of(name, foreign)
        for positions in groups:
            positions.append(index)
        names.append(f"{foreign}:{name}" if foreign else name)
        self.foreign.append(foreign)
        self.groups.append(groups)
        if index >= self.deepest:
            self.deepest = index + 1
        if not formatting:
            self.serials.append(-1)
            return -1
        serial = self.next_serial
        self.next_serial += 1
        self.serials.append(serial)
        self.open.add(serial)
        return serial

    def pop_to(self, index: int) -> None:
        """Pop every element at ``index`` and above."""
        index = max(index, 0)
        if len(self.names) <= index:
            return
        for groups in self.groups[index:]:
            for positions in groups:
                positions.pop()
        for serial in self.serials[index:]:
            if serial >= 0:
                self.open.discard(serial)
        del self.names[index:], self.foreign[index:], self.serials[index:]
        del self.groups[index:]

    def pop(self) -> None:
        self.pop_to(len(self.names) - 1)

    def _build(self) -> None:
        """Count one element the parser creates. Reopened formatting elements are created
        without a start tag of their own: 150 unclosed ``<b id=n>`` then ``<p>x</p>`` x 20 000
        (161 KB, never deeper than 151) had lexbor build 3 million elements (1.1 GB)."""
        self.built += 1
        if self.built > self.max_elements:
            raise InputError("too_many_elements", f"more than {self.max_elements} elements built")

    def child(self) -> None:
        """One more element inside the current node (a void one, or one about to open)."""
        self._build()

    def top(self, name: str) -> int:
        """Position of the topmost open ``name``, or -1."""
        positions = self.at.get(name)
        return positions[-1] if positions else -1

    def in_scope(self, name: str, kind: str = "default") -> int:
        """Position of ``name`` when it is in ``kind`` scope, else -1."""
        index = self.top(name)
        bounds = self.bounds[kind]
        if index < 0 or (bounds and bounds[-1] > index):
            return -1
        return index

    def current(self) -> str:
        """The current node's name; SVG and MathML names carry their namespace (``svg:g``)."""
        return self.names[-1] if self.names else ""

    def current_foreign(self) -> bool:
        """Whether the current node is SVG or MathML, not an integration point: where start
        tags make foreign elements and ``/>`` closes them."""
        if not self.foreign or not self.foreign[-1]:
            return False
        return self.names[-1] not in _INTEGRATION_POINTS

    # -- the list of active formatting elements --------------------------------------------

    def push_formatting(self, name: str, attributes: str) -> None:
        """Open a formatting element and list it; a fourth identical entry since the last
        marker drops the earliest (the "Noah's Ark" clause). Identity is the raw attribute
        text, stricter than the standard's attribute sets: it can only keep more entries."""
        key = (name, attributes)
        same = [
            n
            for n in range(len(self.formatting) - 1, -1, -1)
            if (entry := self.formatting[n]) is not None and entry.key == key
        ]
        if len(same) >= 3:
            del self.formatting[same[-1]]
        serial = self.push(name, formatting=True)
        self.formatting.append(_Entry(key, serial))

    def reconstruct(self) -> None:
        """Reopen listed formatting elements that were closed by a block's end (WHATWG
        "reconstruct the active formatting elements"): ``<p><b>x</p><p>y`` puts a new ``b``
        in the second ``p``. Each reopened one deepens the stack."""
        listed = self.formatting
        if not listed or listed[-1] is None or listed[-1].serial in self.open:
            return
        first = len(listed) - 1
        while first > 0:
            before = listed[first - 1]
            if before is None or before.serial in self.open:
                break
            first -= 1
        for n in range(first, len(listed)):
            entry = listed[n]
            assert entry is not None
            listed[n] = _Entry(entry.key, self.push(entry.key[0], formatting=True))

    def marker(self) -> None:
        self.formatting.append(None)

    def clear_to_marker(self) -> None:
        while self.formatting and self.formatting.pop() is not None:
            pass

    def forget(self, name: str) -> None:
        """Drop the last listed entry named ``name`` after the last marker."""
        for n in range(len(self.formatting) - 1, -1, -1):
            entry = self.formatting[n]
            if entry is None:
                return
            if entry.key[0] == name:
                del self.formatting[n]
                return


class _Entry(NamedTuple):
    key: tuple[str, str]
    serial: int


def _start(stack: _Stack, name: str, self_closing: bool, attributes: str) -> None:
    """What an HTML start tag does to the stack (WHATWG "in body", simplified)."""
    if not stack.foreign or not stack.foreign[-1]:  # the current node is HTML: shortcuts
        if name in _BLOCK_START:
            _close(stack, stack.in_scope("p", "button"))
            stack.push(name)
            return
        if name not in _NAMED_IN_START:
            stack.reconstruct()
            stack.push(name)
            if name in _MARKERS:
                stack.marker()
            return
    _start_any(stack, name, self_closing, attributes)


def _start_any(stack: _Stack, name: str, self_closing: bool, attributes: str) -> None:
    """``_start`` without its shortcuts: every rule in order."""
    if stack.current_foreign():
        if name not in _BREAKOUT:
            if self_closing:
                stack.child()
            else:
                stack.push(name, foreign=stack.foreign[-1])
            return
        while stack.current_foreign():
            stack.pop()
    if name in ("input", "select") and stack.in_scope("select") >= 0:
        # these close an open select; lexbor keeps a textarea or keygen inside it
        _close(stack, stack.in_scope("select"))
        if name == "select":
            return
    if name in ("a", "nobr"):
        _close_formatting(stack, name)
    elif name == "button":
        _close(stack, stack.in_scope("button"))
    elif name in ("option", "optgroup"):
        if stack.top("select") >= 0:  # implied end tags (an open optgroup holds options)
            kept = "optgroup" if name == "option" else ""
            while stack.current() in _IMPLIED_END and stack.current() != kept:
                stack.pop()
        elif stack.current() == "option":
            stack.pop()
    if name not in _NO_RECONSTRUCT:
        stack.reconstruct()
    if name in ("svg", "math"):
        if self_closing:
            stack.child()
        else:
            stack.push(name, foreign=name)
        return
    if name in _IGNORED_IN_BODY:
        return
    if name == "col" and stack.in_scope("table", "table") >= 0:
        _table_part(stack, "colgroup")
        stack.child()
        return
    if name in _VOID:
        if name == "hr":
            _close(stack, stack.in_scope("p", "button"))
        stack.child()
        return
    if name in _FORMATTING:
        stack.push_formatting(name, attributes.strip(_WS + "/"))
        return
    if name == "form":
        if stack.form_open and stack.top("template") < 0:
            return  # a form inside a form is dropped
        stack.form_open = True
    if name in _CLOSES_P:
        _close(stack, stack.in_scope("p", "button"))
        if name in _HEADINGS and stack.current() in _HEADINGS:
            stack.pop()
    elif name == "li":
        _close_item(stack, ("li",))
        _close(stack, stack.in_scope("p", "button"))
    elif name in ("dd", "dt"):
        _close_item(stack, ("dd", "dt"))
        _close(stack, stack.in_scope("p", "button"))
    elif name in _RUBY_IMPLIED:
        if stack.in_scope("ruby") >= 0:  # implied end tags (but an rtc holds rt and rp)
            kept = "rtc" if name in ("rt", "rp") else ""
            while stack.current() in _IMPLIED_END and stack.current() != kept:
                stack.pop()
    elif name in _TABLE_PARTS:
        _table_part(stack, name)
        return
    stack.push(name)
    if name in _MARKERS:
        stack.marker()


def _close(stack: _Stack, index: int) -> None:
    """Pop through position ``index`` (nothing when -1); each marker element popped (a cell,
    a caption, a template...) clears the formatting list back to its marker."""
    if index < 0:
        return
    bounds = stack.bounds["default"]
    for n in range(len(bounds) - 1, -1, -1):
        if bounds[n] < index:
            break
        if stack.names[bounds[n]] in _MARKERS and not stack.foreign[bounds[n]]:
            stack.clear_to_marker()
    stack.pop_to(index)


def _close_item(stack: _Stack, names: tuple[str, ...]) -> None:
    """``<li>`` (or ``<dd>``/``<dt>``) closes an open item unless a special element other
    than address, div or p stands above it."""
    index = max(stack.top(name) for name in names)
    if index >= 0 and (not stack.li_stops or stack.li_stops[-1] <= index):
        stack.pop_to(index)


def _close_formatting(stack: _Stack, name: str) -> None:
    """A formatting end tag (or a new ``<a>``/``<nobr>``): the adoption agency, in effect on
    depth. In scope with no special element above, it closes (and leaves the list); with
    one above, it is swapped for a clone inside that element, which keeps the depth."""
    index = stack.in_scope(name)
    if index < 0:
        if stack.top(name) < 0:
            stack.forget(name)
        return
    if not stack.special or stack.special[-1] < index:
        stack.pop_to(index)
        stack.forget(name)


def _table_part(stack: _Stack, name: str) -> None:
    """Rows, cells and sections exist only inside a table; the parser adds the implied
    ``<tbody>``/``<tr>`` and closes the open cell or row."""
    table = stack.in_scope("table", "table")
    if table < 0:
        return  # outside a table these tags are ignored
    if name in _TABLE_SECTIONS or name in ("caption", "colgroup"):
        if name == "colgroup" and stack.current() == "colgroup":
            return
        _close(stack, table + 1)
        stack.push(name)
        if name == "caption":
            stack.marker()
        return
    row = stack.top("tr")
    if name == "tr" or row < table:
        section = max(stack.top(s) for s in _TABLE_SECTIONS)
        _close(stack, section + 1 if section > table else table + 1)
        if section <= table:
            stack.push("tbody")
        stack.push("tr")
        if name == "tr":
            return
    else:
        _close(stack, row + 1)
    stack.push(name)
    stack.marker()


def _end(stack: _Stack, name: str) -> None:
    """What an end tag does to the stack."""
    names = stack.names
    if names and names[-1] == name and not stack.foreign[-1] and name not in _END_NAMED:
        stack.pop()  # the shortcut: it closes the current node, and only that
        return
    _end_any(stack, name)


def _end_any(stack: _Stack, name: str) -> None:
    """``_end`` without its shortcut: every rule in order."""
    if stack.foreign and stack.foreign[-1]:  # integration points too: only their start tags
        if name in ("p", "br"):  # a breakout, as its start tag would be
            while stack.current_foreign():
                stack.pop()
        else:
            index = max(stack.top(f"svg:{name}"), stack.top(f"math:{name}"))
            if index >= 0 and (not stack.html or stack.html[-1] < index):
                stack.pop_to(index)
                return
    if name == "br":
        _start(stack, "br", False, "")
        return
    if name == "p":
        _close(stack, stack.in_scope("p", "button"))
    elif name in _HEADINGS:
        _close(stack, max(stack.in_scope(h) for h in _HEADINGS))
    elif name == "li":
        _close(stack, stack.in_scope("li", "list"))
    elif name == "template":
        _close(stack, stack.top("template"))
    elif name == "noscript":
        # Before the body a <noscript> belongs to the head and its end tag is then ignored
        # in the body; closing only a current noscript can only leave more open.
        if stack.current() == "noscript":
            stack.pop()
    elif name == "form":
        # The parser takes the form out of the stack and leaves what is above it open; this
        # model can only pop from the top, so a misnested form stays open (more depth).
        stack.form_open = False
        if stack.current() == "form":
            stack.pop()
    elif name in _FORMATTING:
        _close_formatting(stack, name)
    elif name in ("table", "tr", "td", "th", "caption", "colgroup") or name in _TABLE_SECTIONS:
        _close(stack, stack.in_scope(name, "table"))
    elif name in _SPECIAL and name not in ("noscript", "select"):
        _close(stack, stack.in_scope(name))
    else:  # any other end tag: the topmost element of that name, unless a special one is above
        index = stack.top(name)
        if index >= 0 and (not stack.special or stack.special[-1] <= index):
            _close(stack, index)


def _tag_end(html: str, pos: int, end: int, slash: bool = True) -> tuple[int, bool]:
    """From just after a tag's name to just after its ``>``: ``(position, self_closing)``.

    A quote opens a value only right after ``=`` (not as part of a name), and a ``>`` inside
    a quoted value does not end the tag. Tags made of plain ``name="value"`` pairs are read
    with ``str.find``, each position found once and reused while it is still ahead; anything
    else goes through the tokenizer's attribute states one character at a time.
    ``slash=False`` skips finding out whether a quote-free tag is self-closing (it only
    matters in SVG and MathML). A tag cut off by the end of the input is dropped by the
    tokenizer (position ``end``).
    """
    start = pos
    close = html.find(">", pos)
    if close < 0:
        return end, False
    double, single = html.find('"', pos, close), html.find("'", pos, close)
    while double >= 0 or single >= 0:
        quote = double if single < 0 or 0 <= double < single else single
        before = html[pos:quote].rstrip(_WS)
        if not (before.endswith("=") and before.count("=") == 1 and before[:-1].strip(_WS + "/")):
            return _attribute_states(html, start, end)
        closing = html.find(html[quote], quote + 1)
        if closing < 0:
            return end, False
        pos = closing + 1
        if close < pos:  # that ">" was inside the value: look again from here
            close = html.find(">", pos)
            if close < 0:
                return end, False
            double, single = html.find('"', pos, close), html.find("'", pos, close)
            continue
        if 0 <= double < pos:
            double = html.find('"', pos, close)
        if 0 <= single < pos:
            single = html.find("'", pos, close)
    if html[close - 1] != "/" or close == start:
        return close + 1, False
    return (close + 1, False) if not slash else _attribute_states(html, start, end)


def _attribute_states(html: str, pos: int, end: int) -> tuple[int, bool]:
    """The tokenizer's attribute states, one character at a time (see ``_tag_end``)."""
    while pos < end:
        ch = html[pos]
        if ch in _WS:
            pos += 1
        elif ch == ">":
            return pos + 1, False
        elif ch == "/":
            if html.startswith(">", pos + 1):
                return pos + 2, True
            pos += 1
        else:
            pos += 1  # the name's first character, even "=", "'" or '"'
            while pos < end and html[pos] not in _WS and html[pos] not in "/>=":
                pos += 1
            while pos < end and html[pos] in _WS:
                pos += 1
            if not html.startswith("=", pos):
                continue
            pos += 1
            while pos < end and html[pos] in _WS:
                pos += 1
            if pos < end and html[pos] in "\"'":
                quote = html.find(html[pos], pos + 1)
                if quote < 0:
                    return end, False
                pos = quote + 1
            else:
                while pos < end and html[pos] not in _WS and html[pos] != ">":
                    pos += 1
    return end, False


def _name(html: str, pos: int, end: int) -> int:
    while pos < end and html[pos] not in _NAME_END:
        pos += 1
    return pos


def _comment_end(html: str, pos: int) -> int:
    """``pos`` just after ``<!--``: the position after the comment (``-->`` or ``--!>``)."""
    if html.startswith(">", pos):
        return pos + 1
    if html.startswith("->", pos):
        return pos + 2
    # "--!>" is looked for only before the first "-->": searching the whole rest of the
    # page for it at every comment made pages with many comments quadratic.
    plain = html.find("-->", pos)
    bang = html.find("--!>", pos, len(html) if plain < 0 else plain + 3)
    if bang >= 0:
        return bang + 4
    return len(html) if plain < 0 else plain + 3


# Tag names are looked up by this many characters after "<": pages repeat a few dozen tags
# thousands of times, so most names are found without reading them character by character.
# A head is cached only when the name ends inside it.
_HEAD = 10


class PageShape(NamedTuple):
    """What the parser will build, as far as cost is concerned."""

    depth: int  # the deepest stack of open elements inside <body>
    elements: int  # start tags, each one element (or none, when the parser drops it)


def scan_page(html: str, limit: int = MAX_DEPTH, max_elements: int = MAX_ELEMENTS) -> PageShape:
    """The page's shape, read without parsing it (module docstring); refused when too deep
    or made of too many elements for every later stage to stay within a few CPU seconds.

    The loop is written for speed (it reads every tag of every page): tag names come from a
    cache of the characters after ``<``, a tag without quotes ends at the next ``>`` and
    ``_tag_end`` reads the others.

    Raises:
        InputError: ``html_too_deep``, ``too_many_elements``.
    """
    stack = _Stack(limit, max_elements)
    known: dict[str, tuple[str, int]] = {}  # head (see _HEAD) -> (lower-case name, length)
    foreign = stack.foreign
    formatting = stack.formatting
    end = len(html)
    elements = 0
    text_from = 0  # where the text since the last tag starts
    pos = html.find("<")
    while 0 <= pos < end - 1:
        if pos > text_from and formatting:
            last = formatting[-1]
            if last is not None and last.serial not in stack.open:
                stack.reconstruct()  # text in body reopens closed formatting elements
        nxt = html[pos + 1]
        closing = nxt == "/"
        at = pos + 2 if closing else pos + 1
        first = html[at : at + 1]
        if ("a" <= first <= "z" or "A" <= first <= "Z") and (closing or first == nxt):
            head = html[at : at + _HEAD]
            found = known.get(head)
            if found is None:
                name_end = _name(html, at, end)
                name = html[at:name_end].lower()
                if name_end - at < len(head):
                    known[head] = (name, name_end - at)
            else:
                name, name_end = found[0], at + found[1]
            close = html.find(">", name_end)
            in_foreign = bool(foreign and foreign[-1])
            if (
                close < 0
                or html.find('"', name_end, close) >= 0
                or (html.find("'", name_end, close) >= 0)
            ):
                slash = not closing and (
                    (in_foreign and stack.current_foreign()) or name in _FOREIGN_ROOTS
                )
                pos, self_closing = _tag_end(html, name_end, end, slash)
            elif (
                html[close - 1] == "/"
                and close != name_end
                and not closing
                and ((in_foreign and stack.current_foreign()) or name in _FOREIGN_ROOTS)
            ):
                pos, self_closing = _attribute_states(html, name_end, end)
            else:
                pos, self_closing = close + 1, False
            if closing:
                _end(stack, name)
            else:
                elements += 1
                if elements > max_elements:
                    raise InputError("too_many_elements", f"more than {max_elements} elements")
                attributes = html[name_end : pos - 1] if name in _FORMATTING else ""
                _start(stack, name, self_closing, attributes)
                if (name in _RAW_TEXT or name == "plaintext") and (
                    stack.names and stack.names[-1] == name and not foreign[-1]
                ):
                    if name == "plaintext":
                        break  # everything after it is text
                    stack.pop()
                    pos = _raw_text_end(html, pos, name)
        elif closing:
            close = html.find(">", pos + 2)
            pos = end if close < 0 else close + 1
        elif nxt == "!":
            if html.startswith("--", pos + 2):
                pos = _comment_end(html, pos + 4)
            elif foreign and foreign[-1] and html.startswith("[CDATA[", pos + 2):
                close = html.find("]]>", pos + 9)
                pos = end if close < 0 else close + 3
            else:
                close = html.find(">", pos + 2)
                pos = end if close < 0 else close + 1
        elif nxt == "?":
            close = html.find(">", pos + 2)
            pos = end if close < 0 else close + 1
        else:
            text_from = -1  # a "<" that opens nothing is text
            pos = html.find("<", pos + 1)
            continue
        text_from = pos
        pos = html.find("<", pos)
    if 0 <= text_from < end and formatting:
        stack.reconstruct()  # text after the last tag
    return PageShape(stack.deepest, elements)


def _raw_text_end(html: str, pos: int, name: str) -> int:
    """The position after the end tag that closes raw text (the input's end when none):
    ``</`` and ``name`` in any case, then a space, ``/`` or ``>``."""
    size = len(name)
    while True:
        at = html.find("</", pos)
        if at < 0:
            return len(html)
        after = at + 2 + size
        if html[at + 2 : after].lower() == name and (
            after >= len(html) or html[after] in _NAME_END
        ):
            close = html.find(">", after)
            return len(html) if close < 0 else close + 1
        pos = at + 2


def check_depth(html: str, limit: int = MAX_DEPTH) -> None:
    """Raise ``InputError("html_too_deep")`` when the parser would nest beyond ``limit``.

    Raises:
        InputError: ``html_too_deep``, ``too_many_elements``.
    """
    scan_page(html, limit)
