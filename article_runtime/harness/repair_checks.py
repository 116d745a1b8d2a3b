"""What a repair may not touch, and what each category must prove (spec 7, 8.2 steps 6-7).

Each protection and each check returns None when the edit passes, else its reason code (the
codes are listed in ``article_runtime.harness.repairs``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import ftfy
from ftfy.badness import is_bad

from article_runtime.harness.repair_edit import Edit
from article_runtime.text.chars import is_plain_mark, is_quote_mark, is_sentence_terminal
from article_runtime.text.edits import edit_distance
from article_runtime.text.fold import dirt, unicode_fold
from article_runtime.text.names import has_upper
from article_runtime.text.numbers import looks_like_date, numeric_runs, numeric_signature
from article_runtime.text.segments import Token, graphemes, nfc
from article_runtime.text.vocabulary import Vocabulary

PROTECTED_NUMBER = "protected_number"
PROTECTED_DATE = "protected_date"
PROTECTED_SCORE = "protected_score"
PROTECTED_NAME = "protected_name"
PROTECTED_QUOTATION = "protected_quotation"
NOT_MOJIBAKE = "not_mojibake"
ENCODING_FIX_MISMATCH = "encoding_fix_mismatch"
NOT_UNICODE_FIX = "not_unicode_fix"
NOT_SPACING_ONLY = "not_spacing_only"
SPACING_CHANGES_WORDS = "spacing_changes_words"
LETTERS_OR_NUMBERS_CHANGED = "letters_or_numbers_changed"
NOT_PUNCTUATION_ONLY = "not_punctuation_only"
PUNCTUATION_INTRODUCED = "punctuation_introduced"
TOO_MANY_PUNCTUATION_CHANGES = "too_many_punctuation_changes"
SENTENCE_TERMINAL_CHANGED = "sentence_terminal_changed"
NOT_SINGLE_WORD_TYPO = "not_single_word_typo"
TYPO_NOT_ALPHABETIC = "typo_not_alphabetic"
CASE_CHANGED = "case_changed"
TYPO_TOO_LARGE = "typo_too_large"
REAL_WORD_SWAP = "real_word_swap"
TYPO_UNATTESTED = "typo_unattested"

_MAX_TYPO_EDITS = 2
_MAX_PUNCTUATION_CHANGES = 2
# Categories that keep letters and digits (checked by their own rule) and so may touch names,
# quotations and the separators of dates and scores.
_CONTENT_PRESERVING: frozenset[str] = frozenset({"encoding", "unicode", "spacing"})


def _protect_numbers(edit: Edit, category: str) -> str | None:
    changed = numeric_signature(edit.target.tokens) != numeric_signature(edit.edited)
    if changed or category not in _CONTENT_PRESERVING:
        for run in numeric_runs(edit.target.tokens):
            if edit.touches(run.start, run.end):
                return PROTECTED_DATE if run.label == "date" else PROTECTED_SCORE
    if not changed:
        return None
    removed = (t for change in edit.tokens for t in change.removed if t.kind == "number")
    return PROTECTED_DATE if any(looks_like_date(t.text) for t in removed) else PROTECTED_NUMBER


def _capitalized(tokens: Sequence[Token]) -> int:
    return sum(1 for token in tokens if token.kind == "letter" and has_upper(token.text))


def _protect_names(edit: Edit, category: str) -> str | None:
    """Names may only be re-spaced or cleaned if no name is split or two are joined."""
    if category == "encoding":
        return None
    for change in edit.tokens:
        if not any(token.start in edit.target.names for token in change.removed):
            continue
        if category in _CONTENT_PRESERVING and _capitalized(change.removed) == _capitalized(
            change.added
        ):
            continue
        return PROTECTED_NAME
    return None


def _protect_quotations(edit: Edit, category: str) -> str | None:
    if category in _CONTENT_PRESERVING:
        return None
    if any(edit.touches(span.start, span.end) for span in edit.target.quotes):
        return PROTECTED_QUOTATION
    return None


PROTECTIONS = (_protect_numbers, _protect_names, _protect_quotations)


def _check_encoding(edit: Edit, _: Vocabulary) -> str | None:
    """ftfy must agree: on the fragment alone, or on the whole target around it."""
    original, replacement = edit.repair.original, edit.repair.replacement
    words = "".join(t.text for change in edit.tokens for t in change.removed)
    if not (is_bad(original) or is_bad(words)):
        return NOT_MOJIBAKE
    if ftfy.fix_encoding(original) == replacement:
        return None
    clean = ftfy.fix_encoding(replacement) == replacement
    if clean and ftfy.fix_encoding(edit.edited_text) == ftfy.fix_encoding(edit.target.text):
        return None
    return ENCODING_FIX_MISMATCH


def _check_unicode(edit: Edit, _: Vocabulary) -> str | None:
    """Same text once folded, and strictly cleaner: NFC fixed or debris removed."""
    original, replacement = edit.repair.original, edit.repair.replacement
    if unicode_fold(original) != unicode_fold(replacement) or nfc(replacement) != replacement:
        return NOT_UNICODE_FIX
    if nfc(original) == original and dirt(replacement) >= dirt(original):
        return NOT_UNICODE_FIX
    return None


def _squeeze(text: str) -> str:
    return "".join(ch for ch in text if not ch.isspace())


def _check_spacing(edit: Edit, vocabulary: Vocabulary) -> str | None:
    """Whitespace only, and no joining or splitting of words this article uses on their own."""
    if _squeeze(edit.repair.original) != _squeeze(edit.repair.replacement):
        return NOT_SPACING_ONLY
    for change in edit.tokens:
        before = [t.text for t in change.removed if t.kind != "none"]
        after = [t.text for t in change.added if t.kind != "none"]
        if len(before) > len(after) and all(vocabulary.count(w) >= 2 for w in before):
            return SPACING_CHANGES_WORDS  # each piece is also a word elsewhere: "a gente"
        if len(before) < len(after) and any(vocabulary.count(w) >= 2 for w in before):
            return SPACING_CHANGES_WORDS  # the joined form is a word elsewhere
    return None


def _terminals(text: str) -> str:
    """Sentence terminals with a doubled mark read once ("..", "!!"); "..." stays three."""
    marks = [ch for ch in text if is_sentence_terminal(ch)]
    out: list[str] = []
    i = 0
    while i < len(marks):
        run = 1
        while i + run < len(marks) and marks[i + run] == marks[i]:
            run += 1
        out.extend(marks[i] * (1 if run == 2 else run))
        i += run
    return "".join(out)


def _words(tokens: Sequence[Token]) -> list[str]:
    return [nfc(token.text) for token in tokens if token.kind != "none"]


def _check_punctuation(edit: Edit, _: Vocabulary) -> str | None:
    """Remove at most two stray or doubled marks; no new mark, no quote, same terminals."""
    original, replacement = edit.repair.original, edit.repair.replacement
    if _words(edit.target.tokens) != _words(edit.edited):
        return LETTERS_OR_NUMBERS_CHANGED
    removed = _squeeze("".join(c.removed for c in edit.chars))
    inserted = _squeeze("".join(c.inserted for c in edit.chars))
    if not removed + inserted or not all(is_plain_mark(ch) for ch in removed + inserted):
        return NOT_PUNCTUATION_ONLY
    if any(is_quote_mark(ch) for ch in removed + inserted):
        return PROTECTED_QUOTATION
    if any(ch not in original for ch in inserted):
        return PUNCTUATION_INTRODUCED
    if len(graphemes(removed)) + len(graphemes(inserted)) > _MAX_PUNCTUATION_CHANGES:
        return TOO_MANY_PUNCTUATION_CHANGES
    if _terminals(original) != _terminals(replacement):
        return SENTENCE_TERMINAL_CHANGED
    return None


def _case_pattern(word: str) -> tuple[bool, int]:
    clusters = graphemes(word)
    return has_upper(clusters[0]) if clusters else False, sum(ch.isupper() for ch in word)


def _check_typo(edit: Edit, vocabulary: Vocabulary) -> str | None:
    """One word, a small grapheme edit, and the article's own usage as the dictionary."""
    if len(edit.tokens) != 1 or len(edit.tokens[0].removed) != 1 or len(edit.tokens[0].added) != 1:
        return NOT_SINGLE_WORD_TYPO
    old, new = edit.tokens[0].removed[0], edit.tokens[0].added[0]
    if old.kind in ("kana", "ideo") or new.kind in ("kana", "ideo"):
        return TYPO_NOT_ALPHABETIC
    if old.kind != "letter" or new.kind != "letter":
        return NOT_SINGLE_WORD_TYPO
    if _case_pattern(old.text) != _case_pattern(new.text):
        return CASE_CHANGED
    before, after = graphemes(nfc(old.text)), graphemes(nfc(new.text))
    distance = edit_distance(before, after)
    if distance == 0:
        return NOT_SINGLE_WORD_TYPO
    if distance > _MAX_TYPO_EDITS or 3 * distance > len(before):
        return TYPO_TOO_LARGE
    if vocabulary.count(old.text) >= 2:
        return REAL_WORD_SWAP
    if distance == _MAX_TYPO_EDITS and vocabulary.count(new.text) == 0:
        return TYPO_UNATTESTED
    if has_upper(old.text) and vocabulary.count_lowercase(new.text) == 0:
        return PROTECTED_NAME  # capitalized at a sentence start: maybe a name, no evidence
    return None


CATEGORY_CHECKS: dict[str, Callable[[Edit, Vocabulary], str | None]] = {
    "encoding": _check_encoding,
    "unicode": _check_unicode,
    "spacing": _check_spacing,
    "punctuation_corruption": _check_punctuation,
    "obvious_typo": _check_typo,
}
