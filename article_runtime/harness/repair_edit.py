"""One repair applied to a window of its target, with library diffs in window offsets.

A review's cost must follow the size of each change, not of its block (issue 9, section 4): a
4 MiB paragraph with 64 repairs once cost minutes. So a repair is judged on a window: the
changed stretch, ``margin`` unchanged characters on each side, widened to the nearest cuts
(``article_runtime.text.cuts``). ICU segments the text between two cuts exactly as it segments
the whole block there, so outside the window the tokens, numbers and separator runs are the
same before and after the edit, and every check that compares them compares the window alone.
What no window can tell (which words are names, which spans are quoted) is read once per block.

Three things must still read a whole block: ftfy's verdict on the edited block (an encoding
repair, spec FIELD_NOTES), the names and quotes of the text a mixed group of repairs leaves, and
a window that finds no cut near its change. Each charges its length to the review's ``Budget``.

Protections and category checks read the same ``Edit``, so each diff is computed once.
"""

from __future__ import annotations

import bisect
import itertools
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

import ftfy

from article_runtime.model.proposal import Repair
from article_runtime.text.cuts import cut_after, cut_before
from article_runtime.text.edits import CharChange, TokenChange, char_changes
from article_runtime.text.edits import token_changes as diff_tokens
from article_runtime.text.names import has_upper, name_keys, word_key
from article_runtime.text.quotes import opens, pair_marks, quote_marks
from article_runtime.text.segments import Token, graphemes, segments, word_tokens

__all__ = ["WINDOW_MARGIN", "Budget", "BudgetExhausted", "Edit", "Target", "TargetRole", "Window"]

WINDOW_MARGIN = 64  # unchanged characters read on each side of a change, then to a cut
CUT_SEARCH = 1024  # how far a window looks for a cut before it reads the whole block
READ_BUDGET = 4 * 1024 * 1024  # characters of whole blocks one review may read again
SUGGESTION_BUDGET = 12  # dictionary suggestion lookups one review may make (tens of ms each)
_NUMBER = range(100, 200)  # ICU word rule status of number segments

# What a target is: a code block (verbatim layout), an author or title line (names), or text.
TargetRole = Literal["text", "code", "author", "title"]


class BudgetExhausted(Exception):
    """A repair needs to read more whole blocks than the review has left."""


@dataclass
class Budget:
    """Characters of whole blocks a review may still read (None: no limit, the reference), and
    dictionary suggestion lookups it may still make (counted cached or not, so a verdict never
    depends on an earlier review)."""

    remaining: int | None = READ_BUDGET
    suggestions: int = SUGGESTION_BUDGET

    def charge(self, chars: int) -> None:
        if self.remaining is None:
            return
        if chars > self.remaining:
            raise BudgetExhausted(chars)
        self.remaining -= chars

    def charge_suggestion(self) -> None:
        if self.suggestions <= 0:
            raise BudgetExhausted("suggestions")
        self.suggestions -= 1


@dataclass(frozen=True, slots=True)
class Window:
    """``text[lo:hi]`` of a target between two cuts, and its tokens (window offsets)."""

    lo: int
    hi: int
    text: str
    tokens: list[Token]

    def token_span(self, start: int, end: int) -> tuple[int, int]:
        """``[start, end)`` (window offsets) widened to the whole tokens it touches."""
        starts = [token.start for token in self.tokens]
        first = max(bisect.bisect_right(starts, start) - 1, 0)
        last = max(bisect.bisect_left(starts, end) - 1, first)
        if not self.tokens:
            return start, end
        return min(start, self.tokens[first].start), max(end, self.tokens[last].end)


@dataclass(frozen=True, slots=True)
class _Quotes:
    """A text's standalone quotation marks, the quotes open before each, and its quoted spans
    (starts, and the furthest end of any span starting at or before each)."""

    marks: list[int]
    depths: list[int]
    starts: list[int]
    furthest: list[int]

    @classmethod
    def read(cls, text: str, locale: str) -> _Quotes:
        marks = quote_marks(text, locale)
        spans, depths = pair_marks(text, marks)
        ends = itertools.accumulate((s.end for s in spans), max)
        return cls(marks, depths, [s.start for s in spans], list(ends))

    def overlap(self, start: int, end: int) -> bool:
        """Whether a quoted span overlaps ``[start, end)``, or strictly contains ``start``
        when the change is an insertion (``start == end``)."""
        before = bisect.bisect_left(self.starts, end)  # spans starting before the change ends
        return before > 0 and self.furthest[before - 1] > start


Replaced = tuple[int, int, int]  # start and end in the parent, length of the replacement


@dataclass
class Target:
    """One block or metadata text under review: windows on demand, whole-text facts once.

    A derived target is the text ``parent`` becomes after the ``replaced`` stretches: it is
    built per repair, so whole-text facts it cannot take from its parent are charged to the
    budget. ``margin`` None makes every window the whole text: the reference windows match.
    ``role`` is what the text is (``TargetRole``): a code block's layout is verbatim, and an
    author or title line reads as names.
    """

    text: str
    locale: str
    budget: Budget
    margin: int | None = WINDOW_MARGIN
    parent: Target | None = None
    replaced: tuple[Replaced, ...] = ()
    role: TargetRole = "text"
    _windows: dict[tuple[int, int], Window] = field(default_factory=dict, repr=False)

    def _read_whole(self) -> None:
        """A block's own facts are read once per review; a derived text's, per repair."""
        if self.parent is not None:
            self.budget.charge(len(self.text))

    @cached_property
    def name_keys(self) -> frozenset[str]:
        """Keys of the words this text treats as names (``text.names``)."""
        self._read_whole()
        return name_keys(self.text, self.locale)

    @cached_property
    def quotes(self) -> _Quotes:
        self._read_whole()
        return _Quotes.read(self.text, self.locale)

    @cached_property
    def encoding_fixed(self) -> str:
        """ftfy's fix of the whole text: what an encoding repair must agree with."""
        self._read_whole()
        return ftfy.fix_encoding(self.text)

    def is_name(self, token: Token) -> bool:
        return token.kind == "letter" and word_key(token.text) in self.name_keys

    def name_like(self, token: Token) -> bool:
        """A name by the text's own capitals (``is_name``), any word of an author line, or a
        capitalized word of a title (title case capitalizes names and words alike)."""
        if token.kind != "letter":
            return False
        if self.role == "author" or (self.role == "title" and has_upper(token.text)):
            return True
        return self.is_name(token)

    def quoted(self, start: int, end: int) -> bool:
        """Whether a quoted span overlaps ``[start, end)`` (an insertion: contains ``start``)."""
        if self.parent is not None and self._inherits_quotes:
            low, high = self._in_parent(start), self._in_parent(end)
            if low is not None and high is not None:
                return self.parent.quoted(low, high)
        return self.quotes.overlap(start, end)

    def _in_parent(self, pos: int) -> int | None:
        """Where offset ``pos`` of this text lies in the parent; None inside a replacement."""
        shift = 0
        for start, end, length in self.replaced:
            if pos <= start + shift:
                break
            if pos < start + shift + length:
                return None
            shift += length - (end - start)
        return pos - shift

    def _from_parent(self, pos: int) -> int | None:
        """Where the parent's character at ``pos`` lies here; None when it was replaced."""
        shift = 0
        for start, end, length in self.replaced:
            if pos < start:
                break
            if pos < end:
                return None
            shift += length - (end - start)
        return pos + shift

    @cached_property
    def _inherits_quotes(self) -> bool:
        """Whether the parent's quoted spans, moved by the replacements, are this text's.

        True when the marks around the replaced stretches are the same marks with the same
        neighbours, so each opens or closes as before: the pairing, and every span, follows.
        Then nothing but a window is read; otherwise the text's own spans are read whole.
        """
        parent = self.parent
        if parent is None or self.margin is None or not self.replaced:
            return False
        window = parent.window(self.replaced[0][0], self.replaced[-1][1], margin=1)
        grown = sum(length - (end - start) for start, end, length in self.replaced)
        text = self.text[window.lo : window.hi + grown]
        here = [window.lo + mark for mark in quote_marks(text, self.locale)]
        index = parent.quotes
        first = bisect.bisect_left(index.marks, window.lo)
        last = bisect.bisect_left(index.marks, window.hi)
        marks, depths = index.marks[first:last], index.depths[first:last]
        if [self._from_parent(mark) for mark in marks] != here:
            return False
        return all(
            opens(parent.text, mark, depth) == opens(self.text, moved, depth)
            for mark, moved, depth in zip(marks, here, depths, strict=True)
        )

    def window(self, start: int, end: int, margin: int | None = None) -> Window:
        """The window around ``[start, end)``: ``margin`` more characters each side, to cuts
        where a word starts (a number there would take signs and runs across the cut)."""
        margin = self.margin if margin is None else margin
        if margin is None:
            return self._window(0, len(self.text))
        lo = cut_before(self.text, start - margin, within=CUT_SEARCH)
        while lo is not None and self._number_at(lo):
            lo = cut_before(self.text, lo - 1, within=CUT_SEARCH)
        hi = cut_after(self.text, end + margin, within=CUT_SEARCH)
        while hi is not None and self._number_at(hi):
            hi = cut_after(self.text, hi + 1, within=CUT_SEARCH)
        if lo is None or hi is None:  # no cut nearby: read far more than the change
            lo, hi = lo or 0, len(self.text) if hi is None else hi
            self.budget.charge(hi - lo)
        return self._window(lo, hi)

    def _number_at(self, cut: int) -> bool:
        """Whether the token starting at ``cut`` is a number (letters ending in digits: A4).

        It ends by the next cut, so reading to there tells; with no cut near, read on.
        """
        if cut <= 0 or cut >= len(self.text):
            return False
        after = cut_after(self.text, cut + 1, within=CUT_SEARCH)
        piece = self.text[cut : len(self.text) if after is None else after]
        _, _, status = next(segments(piece, self.locale))
        return status in _NUMBER

    def _window(self, lo: int, hi: int) -> Window:
        if (lo, hi) not in self._windows:
            text = self.text[lo:hi]
            tokens = word_tokens(text, self.locale, keep_spaces=True)
            self._windows[(lo, hi)] = Window(lo, hi, text, tokens)
        return self._windows[(lo, hi)]

    def token_span(self, start: int, end: int) -> tuple[int, int]:
        """``[start, end)`` widened to the whole tokens (words, spaces, marks) it touches."""
        window = self.window(start, end, margin=1 if self.margin is not None else None)
        low, high = window.token_span(start - window.lo, end - window.lo)
        return low + window.lo, high + window.lo

    def splits_grapheme(self, start: int, end: int) -> bool:
        """Whether ``start`` or ``end`` falls inside a user-perceived character."""
        window = self.window(start, end, margin=1 if self.margin is not None else None)
        edges = set(itertools.accumulate((len(g) for g in graphemes(window.text)), initial=0))
        return start - window.lo not in edges or end - window.lo not in edges


@dataclass(frozen=True, slots=True)
class Edit:
    """One repair applied to a window of its target; offsets are window offsets.

    ``before`` is the target's window, ``edited_text``/``edited`` the same window after the
    repair; ``tokens`` and ``chars`` are the library diffs between them.
    """

    repair: Repair
    target: Target
    before: Window
    start: int  # of repair.original in the window
    edited_text: str
    edited: list[Token]
    tokens: list[TokenChange]
    chars: list[CharChange]

    @property
    def lo(self) -> int:
        return self.before.lo

    @classmethod
    def make(cls, repair: Repair, target: Target, start: int) -> Edit:
        end = start + len(repair.original)
        margin = target.margin
        while True:
            window = target.window(start, end, margin)
            local = start - window.lo
            after = local + len(repair.original)
            text = window.text[:local] + repair.replacement + window.text[after:]
            edited = word_tokens(text, target.locale, keep_spaces=True)
            whole = window.lo == 0 and window.hi == len(target.text)
            if whole or _margins_hold(window.tokens, edited):
                break
            margin = 2 * (margin or 1)
        chars = [
            CharChange(c.start + local, c.end + local, c.removed, c.inserted)
            for c in char_changes(repair.original, repair.replacement)
        ]
        changes = diff_tokens(window.tokens, edited)
        return cls(repair, target, window, local, text, edited, changes, chars)

    def whole_edited_text(self) -> str:
        """The whole target after the repair; reading it is charged to the review's budget."""
        self.target.budget.charge(len(self.target.text))
        text = self.target.text
        return text[: self.before.lo] + self.edited_text + text[self.before.hi :]

    def touches(self, start: int, end: int) -> bool:
        """Whether a changed character falls in ``[start, end)`` (insertions strictly inside);
        window offsets."""
        for change in self.chars:
            if change.start == change.end and start < change.start < end:
                return True
            if change.start < change.end and change.start < end and start < change.end:
                return True
        return False

    def touches_quotation(self) -> bool:
        """Whether a changed character falls in a quoted span of the whole target."""
        return any(
            self.target.quoted(self.lo + change.start, self.lo + change.end)
            for change in self.chars
        )


def _margins_hold(old: list[Token], new: list[Token]) -> bool:
    """Whether the unchanged tokens on each side outnumber the changed ones on both sides.

    diff-match-patch slides an edit over an equal run next to it only when the edit's text
    ends (or starts) with that whole run; a run longer than anything changed never slides, so
    the window's diff is the whole text's diff there.
    """
    size = min(len(old), len(new))
    prefix = 0
    while prefix < size and old[prefix].text == new[prefix].text:
        prefix += 1
    suffix = 0
    while suffix < size - prefix and old[-1 - suffix].text == new[-1 - suffix].text:
        suffix += 1
    changed = len(old) + len(new) - 2 * (prefix + suffix)
    return prefix > changed and suffix > changed
