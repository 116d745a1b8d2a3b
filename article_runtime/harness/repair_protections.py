"""What no repair may touch or write whatever its category: hidden characters, words of mixed
scripts, a code block's layout, numbers, dates, scores, names, quotations (spec 7.1, 8.2 step 6).

A replacement is judged as written: what the character diff inserts may hold no hidden
character (``chars.is_hidden``), and the letters and marks of every word the edit writes must be
of one script (UTS #39) unless the words it replaces already mixed scripts: a punctuation mark
of another script that ICU's word rules join to a word is no letter of that script. A
``unicode`` fix only removes such characters, so it passes; a typo fix that slips a control
into its word does not.

Each protection returns None when the edit passes, else its reason code (the codes are listed
in ``article_runtime.harness.repairs``).
"""

from __future__ import annotations

from collections.abc import Sequence

from article_runtime.harness.repair_edit import Edit
from article_runtime.text.chars import is_hidden, is_white_space
from article_runtime.text.names import has_upper
from article_runtime.text.numbers import (
    looks_like_date,
    number_affixes,
    numeric_runs,
    numeric_signature,
)
from article_runtime.text.scripts import letters_single_script
from article_runtime.text.segments import Token

__all__ = ["PROTECTIONS"]

HIDDEN_CHARACTER_ADDED = "hidden_character_added"
MIXED_SCRIPT_ADDED = "mixed_script_added"
VERBATIM_BLOCK = "verbatim_block"
VERBATIM_WHITESPACE = "verbatim_whitespace"
PROTECTED_NUMBER = "protected_number"
PROTECTED_DATE = "protected_date"
PROTECTED_SCORE = "protected_score"
PROTECTED_NAME = "protected_name"
PROTECTED_QUOTATION = "protected_quotation"

# Categories that may touch a code block: computed fixes, which never re-space it either.
VERBATIM_ALLOWED: frozenset[str] = frozenset({"encoding", "unicode"})
# Categories whose own check keeps every letter and digit, so they may touch names, quotations
# and the separators of dates and scores.
CONTENT_PRESERVING: frozenset[str] = frozenset({"encoding", "unicode", "spacing"})
# Categories whose replacement is computed, not chosen (ftfy, NFC minus debris): they restore
# what a sign next to a number was, so the sign comparison would only refuse real fixes.
COMPUTED: frozenset[str] = frozenset({"encoding", "unicode"})


def _single_script(tokens: Sequence[Token]) -> bool:
    return all(letters_single_script(t.text) for t in tokens if t.kind != "none")


def _protect_written(edit: Edit, _: str) -> str | None:
    """Inserted characters as written: none hidden, and no word newly of mixed scripts."""
    if any(is_hidden(ch) for change in edit.chars for ch in change.inserted):
        return HIDDEN_CHARACTER_ADDED
    for change in edit.tokens:
        if _single_script(change.removed) and not _single_script(change.added):
            return MIXED_SCRIPT_ADDED
    return None


def _protect_verbatim(edit: Edit, category: str) -> str | None:
    """A code block is literal: only computed fixes, and no whitespace or indentation changes."""
    if edit.target.role != "code":
        return None
    if category not in VERBATIM_ALLOWED:
        return VERBATIM_BLOCK
    for change in edit.chars:
        if any(is_white_space(ch) for ch in change.removed + change.inserted):
            return VERBATIM_WHITESPACE
    return None


def _protect_numbers(edit: Edit, category: str) -> str | None:
    """Every category but ``encoding``: ftfy's fix, agreed on the whole target, only restores
    bytes of letters (the ``¼`` of ``Ã¼`` is half of ``ü``) and never changes a digit.

    Outside the window numbers and their signs are the same before and after (a cut is
    followed by a letter, which ends every number and every sign scan), so the window's
    numbers stand for the whole target's.
    """
    if category == "encoding":
        return None
    before = edit.before
    changed = numeric_signature(before.tokens) != numeric_signature(edit.edited)
    if changed or category not in CONTENT_PRESERVING:
        for run in numeric_runs(before.tokens):
            if edit.touches(run.start, run.end):
                return PROTECTED_DATE if run.label == "date" else PROTECTED_SCORE
    if changed:
        removed = (t for change in edit.tokens for t in change.removed if t.kind == "number")
        return PROTECTED_DATE if any(looks_like_date(t.text) for t in removed) else PROTECTED_NUMBER
    if category not in COMPUTED:
        locale = edit.target.locale
        if number_affixes(before.text, before.tokens, locale) != number_affixes(
            edit.edited_text, edit.edited, locale
        ):
            return PROTECTED_NUMBER  # a sign or unit of a number: -15, $12, 35%, +3
    return None


def _capitalized(tokens: Sequence[Token]) -> int:
    return sum(1 for token in tokens if token.kind == "letter" and has_upper(token.text))


def _protect_names(edit: Edit, category: str) -> str | None:
    """Names may only be re-spaced or cleaned if no name is split or two are joined.

    ``obvious_typo`` judges capitalized words itself: only a non-word into a word the article
    writes elsewhere (the name heuristic cannot tell a German noun from a name).
    """
    if category in ("encoding", "obvious_typo"):
        return None
    for change in edit.tokens:
        if not any(edit.target.is_name(token) for token in change.removed):
            continue
        if category in CONTENT_PRESERVING and _capitalized(change.removed) == _capitalized(
            change.added
        ):
            continue
        return PROTECTED_NAME
    return None


def _protect_quotations(edit: Edit, category: str) -> str | None:
    if category in CONTENT_PRESERVING:
        return None
    return PROTECTED_QUOTATION if edit.touches_quotation() else None


PROTECTIONS = (
    _protect_verbatim,
    _protect_written,
    _protect_numbers,
    _protect_names,
    _protect_quotations,
)
