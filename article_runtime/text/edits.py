"""Diffs by diff-match-patch (spec 8.2 step 5: a library diff, never a regex) and edit distance.

Token sequences are diffed by mapping each distinct token to one astral code point, the same
trick diff-match-patch uses for line diffs, so the library does the alignment.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from diff_match_patch import diff_match_patch

from article_runtime.text.segments import Token

_DELETE, _EQUAL, _INSERT = -1, 0, 1
_FIRST_CODE = 0x10000  # astral planes: no surrogates, room for a million distinct tokens


@dataclass(frozen=True, slots=True)
class TokenChange:
    """One run of removed tokens (old offsets) replaced by added tokens (new offsets)."""

    removed: tuple[Token, ...]
    added: tuple[Token, ...]


@dataclass(frozen=True, slots=True)
class CharChange:
    """``old[start:end]`` became ``inserted`` (an insertion has ``start == end``)."""

    start: int
    end: int
    removed: str
    inserted: str


def _differ() -> diff_match_patch:
    differ = diff_match_patch()
    differ.Diff_Timeout = 0  # deterministic: the same input always gives the same verdict
    return differ


def _diff(old: str, new: str) -> list[tuple[int, str]]:
    return [(int(op), str(text)) for op, text in _differ().diff_main(old, new, False)]


def char_changes(old: str, new: str) -> list[CharChange]:
    """Changed character runs between ``old`` and ``new``, located in ``old``."""
    changes: list[CharChange] = []
    pos = start = 0
    removed: list[str] = []
    inserted: list[str] = []
    for op, text in [*_diff(old, new), (_EQUAL, "")]:
        if op != _EQUAL:
            if not removed and not inserted:
                start = pos
            (removed if op == _DELETE else inserted).append(text)
            pos += len(text) if op == _DELETE else 0
            continue
        if removed or inserted:
            changes.append(CharChange(start, pos, "".join(removed), "".join(inserted)))
            removed, inserted = [], []
        pos += len(text)
    return changes


def token_changes(old: Sequence[Token], new: Sequence[Token]) -> list[TokenChange]:
    """Runs of tokens that differ between two token sequences, aligned by diff-match-patch."""
    codes: dict[str, str] = {}

    def encode(tokens: Sequence[Token]) -> str:
        return "".join(codes.setdefault(t.text, chr(_FIRST_CODE + len(codes))) for t in tokens)

    changes: list[TokenChange] = []
    i = j = 0
    removed: list[Token] = []
    added: list[Token] = []
    for op, text in _diff(encode(old), encode(new)):
        if op == _EQUAL:
            if removed or added:
                changes.append(TokenChange(tuple(removed), tuple(added)))
                removed, added = [], []
            i += len(text)
            j += len(text)
        elif op == _DELETE:
            removed.extend(old[i : i + len(text)])
            i += len(text)
        else:
            added.extend(new[j : j + len(text)])
            j += len(text)
    if removed or added:
        changes.append(TokenChange(tuple(removed), tuple(added)))
    return changes


def edit_distance(a: Sequence[str], b: Sequence[str]) -> int:
    """Damerau-Levenshtein (optimal string alignment) over units, e.g. graphemes.

    The common prefix and suffix are cut first (exact for this distance): a repair changes at
    most 200 characters, so a typo inside a 100 000-character token costs a small table, not a
    quadratic one (6 000 characters took 8 s).
    """
    start = 0
    while start < len(a) and start < len(b) and a[start] == b[start]:
        start += 1
    end_a, end_b = len(a), len(b)
    while end_a > start and end_b > start and a[end_a - 1] == b[end_b - 1]:
        end_a, end_b = end_a - 1, end_b - 1
    return _osa(a[start:end_a], b[start:end_b])


def _osa(a: Sequence[str], b: Sequence[str]) -> int:
    previous: list[int] = []
    row = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        before, previous = previous, row
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], before[j - 2] + 1)
    return row[len(b)]
