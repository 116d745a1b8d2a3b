"""What each repair category may change, character by character (spec 7.2, 8.2 step 7).

Each category names the characters it may change, and where a deterministic fix exists the
model's replacement must equal it; nothing is compared through a fold that could hide a change.

- ``encoding``: the replacement is ftfy's fix of the original, and ftfy agrees on the target.
- ``unicode``: the replacement is the original in NFC with invisible debris removed.
- ``spacing``: only horizontal spaces change (into one space or none); words are re-joined or
  split only when the old reading is no words and the new one is.
- ``punctuation_corruption``: marks are only removed, from runs of two or more (doubled ``,,``,
  clashing ``,.``), and a run keeps at least one.
- ``obvious_typo``: one non-word becomes one word of the article's language, same script,
  within two grapheme edits; a capitalized word (a name, a German noun) only into a word the
  article itself writes elsewhere.

Each check returns None when the edit passes, else its reason code (the codes are listed in
``article_runtime.harness.repairs``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import ftfy

from article_runtime.harness.repair_edit import Edit
from article_runtime.harness.repair_protections import PROTECTED_NAME, PROTECTED_QUOTATION
from article_runtime.text.chars import (
    is_horizontal_space,
    is_plain_mark,
    is_quote_mark,
    is_sentence_terminal,
)
from article_runtime.text.edits import edit_distance
from article_runtime.text.lexicon import Lexicon
from article_runtime.text.names import has_upper
from article_runtime.text.scripts import is_unspaced, letter_scripts
from article_runtime.text.segments import Token, graphemes, nfc
from article_runtime.text.unicode_fix import unicode_fix
from article_runtime.text.vocabulary import Vocabulary

__all__ = ["CATEGORY_CHECKS", "Evidence"]

NOT_MOJIBAKE = "not_mojibake"
ENCODING_FIX_MISMATCH = "encoding_fix_mismatch"
NOT_UNICODE_FIX = "not_unicode_fix"
UNICODE_FIX_MISMATCH = "unicode_fix_mismatch"
NOT_SPACING_ONLY = "not_spacing_only"
SPACING_CHANGES_WORDS = "spacing_changes_words"
LANGUAGE_NOT_COVERED = "language_not_covered"
LETTERS_OR_NUMBERS_CHANGED = "letters_or_numbers_changed"
NOT_PUNCTUATION_ONLY = "not_punctuation_only"
PUNCTUATION_INTRODUCED = "punctuation_introduced"
NOT_DUPLICATED_OR_STRAY = "not_duplicated_or_stray"
TOO_MANY_PUNCTUATION_CHANGES = "too_many_punctuation_changes"
SENTENCE_TERMINAL_CHANGED = "sentence_terminal_changed"
NOT_SINGLE_WORD_TYPO = "not_single_word_typo"
TYPO_NOT_ALPHABETIC = "typo_not_alphabetic"
TYPO_CHANGES_SCRIPT = "typo_changes_script"
CASE_CHANGED = "case_changed"
TYPO_TOO_LARGE = "typo_too_large"
REAL_WORD_SWAP = "real_word_swap"
REPLACEMENT_NOT_A_WORD = "replacement_not_a_word"

_MAX_TYPO_EDITS = 2
_MAX_PUNCTUATION_REMOVED = 2
_ONE_SPACE = " "


@dataclass(frozen=True, slots=True)
class Evidence:
    """What word-hood is decided with: the article's own words and its language's word list."""

    vocabulary: Vocabulary
    lexicon: Lexicon | None  # None: no large word list for the article's language


# --- encoding, unicode: the replacement equals a computed fix ----------------------------------


def _check_encoding(edit: Edit, _: Evidence) -> str | None:
    """ftfy's fix of the fragment, and the same fix ftfy makes when it reads the whole target."""
    original, replacement = edit.repair.original, edit.repair.replacement
    fixed = ftfy.fix_encoding(original)
    if fixed == original:
        return NOT_MOJIBAKE
    if replacement != fixed:
        return ENCODING_FIX_MISMATCH
    if ftfy.fix_encoding(edit.whole_edited_text()) != edit.target.encoding_fixed:
        return ENCODING_FIX_MISMATCH  # read in context, ftfy would not fix it that way
    return None


def _check_unicode(edit: Edit, _: Evidence) -> str | None:
    original, replacement = edit.repair.original, edit.repair.replacement
    fixed = unicode_fix(original)
    if fixed == original:
        return NOT_UNICODE_FIX
    return None if replacement == fixed else UNICODE_FIX_MISMATCH


# --- separators: what lies between the characters a category keeps ----------------------------


def _split(text: str, is_separator: Callable[[str], bool]) -> tuple[str, list[str]]:
    """The kept characters, and the separator runs before, between and after them."""
    kept: list[str] = []
    runs: list[str] = []
    run: list[str] = []
    for ch in text:
        if is_separator(ch):
            run.append(ch)
        else:
            runs.append("".join(run))
            run = []
            kept.append(ch)
    runs.append("".join(run))
    return "".join(kept), runs


def _has_space(text: str) -> bool:
    return any(is_horizontal_space(ch) for ch in text)


# --- spacing --------------------------------------------------------------------------------


def _reads_as_words(tokens: Sequence[Token], evidence: Evidence, *, used: int) -> bool:
    """Every token is a number, a word of the language, or used ``used`` times in the article."""
    lexicon = evidence.lexicon
    return all(
        token.kind == "number"
        or (lexicon is not None and lexicon.is_word(token.text))
        or evidence.vocabulary.count(token.text) >= used
        for token in tokens
    )


def _word_runs(edit: Edit) -> Iterable[tuple[list[Token], list[Token]]]:
    """Runs of word tokens that differ: what a change of spacing joined or split."""
    for change in edit.tokens:
        before = [t for t in change.removed if t.kind != "none"]
        after = [t for t in change.added if t.kind != "none"]
        if [t.text for t in before] != [t.text for t in after]:
            yield before, after


def _check_spacing(edit: Edit, evidence: Evidence) -> str | None:
    """Horizontal spaces only, each changed gap becoming one space or none; no line break."""
    old_kept, old_gaps = _split(edit.repair.original, is_horizontal_space)
    new_kept, new_gaps = _split(edit.repair.replacement, is_horizontal_space)
    if old_kept != new_kept:
        return NOT_SPACING_ONLY
    if any(new not in (old, "", _ONE_SPACE) for old, new in zip(old_gaps, new_gaps, strict=True)):
        return NOT_SPACING_ONLY
    for before, after in _word_runs(edit):
        if any(is_unspaced(t.text) for t in (*before, *after)):
            if len(after) > len(before):
                return SPACING_CHANGES_WORDS  # a space inside unspaced text fixes nothing
            continue
        if evidence.lexicon is None:
            return LANGUAGE_NOT_COVERED
        if _reads_as_words(before, evidence, used=2):
            return SPACING_CHANGES_WORDS  # "now here" -> "nowhere", "agente" -> "a gente"
        if not _reads_as_words(after, evidence, used=1):
            return SPACING_CHANGES_WORDS  # "prefei tura" -> "prefeitura" needs "prefeitura"
    return None


# --- punctuation_corruption -----------------------------------------------------------------


def _is_separator(ch: str) -> bool:
    return is_plain_mark(ch) or is_horizontal_space(ch)


def _marks(text: str) -> str:
    return "".join(ch for ch in text if not is_horizontal_space(ch))


def _is_subsequence(short: str, long: str) -> bool:
    rest = iter(long)
    return all(ch in rest for ch in short)


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


def _separator_change(old: str, new: str) -> tuple[str | None, int]:
    """The reason one separator run may not become ``new``, and how many marks it loses."""
    if not _is_subsequence(new, old):
        return PUNCTUATION_INTRODUCED, 0
    old_marks, new_marks = _marks(old), _marks(new)
    lost = Counter(old_marks) - Counter(new_marks)
    if not lost:
        return NOT_PUNCTUATION_ONLY, 0  # only spaces changed: that is spacing
    if any(is_quote_mark(ch) for ch in lost):
        return PROTECTED_QUOTATION, 0
    if not new_marks:
        return NOT_DUPLICATED_OR_STRAY, 0  # a run's last mark is the text's own: "fast , they"
    if _has_space(old) and not _has_space(new):
        return NOT_PUNCTUATION_ONLY, 0  # would glue two words together
    return None, len(old_marks) - len(new_marks)


def _separator_window(edit: Edit) -> tuple[str, str]:
    """The changed stretch, before and after, widened to whole separator runs.

    Outside it both texts are the same characters, so only this stretch needs comparing. The
    edit's window ends at letters, so no separator run crosses it.
    """
    text = edit.before.text
    low, high = edit.start, edit.start + len(edit.repair.original)
    while low > 0 and _is_separator(text[low - 1]):
        low -= 1
    while high < len(text) and _is_separator(text[high]):
        high += 1
    grown = len(edit.repair.replacement) - len(edit.repair.original)
    return text[low:high], edit.edited_text[low : high + grown]


def _words(tokens: Sequence[Token]) -> list[str]:
    return [token.text for token in tokens if token.kind != "none"]


def _check_punctuation(edit: Edit, _: Evidence) -> str | None:
    """Marks removed from doubled or stray runs only; at most two; terminals read the same."""
    original, replacement = edit.repair.original, edit.repair.replacement
    old, new = _separator_window(edit)
    old_kept, old_runs = _split(old, _is_separator)
    new_kept, new_runs = _split(new, _is_separator)
    if old_kept != new_kept:
        if _words(edit.before.tokens) != _words(edit.edited):
            return LETTERS_OR_NUMBERS_CHANGED
        return NOT_PUNCTUATION_ONLY  # an emoji, a symbol of tone or a line break
    removed = 0
    for old, new in zip(old_runs, new_runs, strict=True):
        if old == new:
            continue
        reason, lost = _separator_change(old, new)
        if reason is not None:
            return reason
        removed += lost
    if removed > _MAX_PUNCTUATION_REMOVED:
        return TOO_MANY_PUNCTUATION_CHANGES
    if _terminals(original) != _terminals(replacement):
        return SENTENCE_TERMINAL_CHANGED
    return None


# --- obvious_typo ---------------------------------------------------------------------------


def _case_pattern(word: str) -> tuple[bool, int]:
    clusters = graphemes(word)
    return has_upper(clusters[0]) if clusters else False, sum(ch.isupper() for ch in word)


def _one_word(edit: Edit) -> tuple[Token, Token] | str:
    if len(edit.tokens) != 1 or len(edit.tokens[0].removed) != 1 or len(edit.tokens[0].added) != 1:
        return NOT_SINGLE_WORD_TYPO
    old, new = edit.tokens[0].removed[0], edit.tokens[0].added[0]
    if old.kind in ("kana", "ideo") or new.kind in ("kana", "ideo"):
        return TYPO_NOT_ALPHABETIC
    if old.kind != "letter" or new.kind != "letter":
        return NOT_SINGLE_WORD_TYPO
    return old, new


def _check_typo(edit: Edit, evidence: Evidence) -> str | None:
    """A string that is no word becomes one that is: same script, case, and at most two edits."""
    pair = _one_word(edit)
    if isinstance(pair, str):
        return pair
    old, new = pair
    scripts = letter_scripts(old.text)
    if len(scripts) != 1 or letter_scripts(new.text) != scripts:
        return TYPO_CHANGES_SCRIPT
    if _case_pattern(old.text) != _case_pattern(new.text):
        return CASE_CHANGED
    before, after = graphemes(nfc(old.text)), graphemes(nfc(new.text))
    distance = edit_distance(before, after)
    if distance == 0:
        return NOT_SINGLE_WORD_TYPO
    if distance > _MAX_TYPO_EDITS or 3 * distance > len(before):
        return TYPO_TOO_LARGE
    if evidence.vocabulary.count(old.text) >= 2:
        return REAL_WORD_SWAP  # the article itself uses it as a word
    lexicon = evidence.lexicon
    if lexicon is None:
        return LANGUAGE_NOT_COVERED
    if not lexicon.is_non_word(old.text):
        return REAL_WORD_SWAP  # emitir -> omitir, billion -> million, colour -> color
    if not lexicon.is_typo_of(old.text, new.text):
        return REPLACEMENT_NOT_A_WORD
    if has_upper(old.text) and evidence.vocabulary.count(new.text) == 0:
        return PROTECTED_NAME  # a name, or a noun the article never writes correctly
    return None


CATEGORY_CHECKS: dict[str, Callable[[Edit, Evidence], str | None]] = {
    "encoding": _check_encoding,
    "unicode": _check_unicode,
    "spacing": _check_spacing,
    "punctuation_corruption": _check_punctuation,
    "obvious_typo": _check_typo,
}
