"""What each repair category may change, and the library that must make the same fix (spec 7.2,
8.2 step 7).

The model proposes; a deterministic library, given the original alone, must agree. Where no
library can tell, the answer is no.

- ``encoding``: the replacement is ftfy's fix of the original, and ftfy agrees on the target.
- ``unicode``: the replacement is the original in NFC with invisible debris removed.
- ``spacing``: only horizontal spaces change (into one space or none). A split only when the
  dictionary rejects the joined form and accepts each part; a join only when it accepts the
  joined form and not every part (parts that are all words may be a phrase: ``now here``,
  ``a gente``). Never on a name-like word, never inside a compound the dictionary knows
  (``well-known``).
- ``punctuation_corruption``: only a repeated comma, colon or semicolon (``,,`` ``;;`` ``: :``)
  loses its repeats, and a mark stuck inside a word the dictionary then accepts
  (``govern-ment``) goes. Sentence terminals (``!!``, ``?!``, ``..``) and ellipses are tone.
- ``obvious_typo``: one word the dictionary rejects becomes the dictionary's own fix of it
  (``text.spelling``: its first suggestion, or the most frequent of its closest ones), same
  script, same case pattern, within two grapheme edits; a capitalized word (a name, a German
  noun) only into a word the article itself writes elsewhere; never a word beside another
  the dictionary rejects (a phrase of another language: Rock and Roll in French).

Each check returns None when the edit passes, else its reason code (the codes are listed in
``article_runtime.harness.repairs``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import ftfy

from article_runtime.harness.repair_edit import Edit, Target
from article_runtime.harness.repair_protections import PROTECTED_NAME, PROTECTED_QUOTATION
from article_runtime.text.chars import (
    is_horizontal_space,
    is_plain_mark,
    is_quote_mark,
    is_sentence_terminal,
    is_separator_mark,
    is_word_char,
)
from article_runtime.text.edits import edit_distance
from article_runtime.text.names import has_upper
from article_runtime.text.scripts import is_unspaced, letter_scripts
from article_runtime.text.segments import Token, graphemes, nfc, word_tokens
from article_runtime.text.spelling import Speller
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
NOT_DICTIONARY_FIX = "not_dictionary_fix"
FOREIGN_WORD = "foreign_word"

_MAX_TYPO_EDITS = 2
_MAX_PUNCTUATION_REMOVED = 2
_ONE_SPACE = " "


@dataclass(frozen=True, slots=True)
class Evidence:
    """What word-hood is decided with: the article's own words and its language's dictionaries."""

    vocabulary: Vocabulary
    speller: Speller | None  # None: no dictionary for the article's language


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


def _word_runs(edit: Edit) -> Iterable[tuple[list[Token], list[Token]]]:
    """Runs of word tokens that differ: what a change of spacing joined or split."""
    for change in edit.tokens:
        before = [t for t in change.removed if t.kind != "none"]
        after = [t for t in change.added if t.kind != "none"]
        if [t.text for t in before] != [t.text for t in after]:
            yield before, after


def _join_or_split(
    edit: Edit, before: Sequence[Token], after: Sequence[Token], speller: Speller
) -> str | None:
    """A split: the joined form is no word and every part is one. A join: the joined form is a
    word and the parts are not all words (all words may be a phrase: ``now here``)."""
    if any(t.kind != "letter" for t in (*before, *after)):
        return SPACING_CHANGES_WORDS
    if any(edit.target.name_like(t) for t in (*before, *after)):
        return PROTECTED_NAME
    if len(before) == 1 and len(after) > 1:
        if speller.knows(before[0].text):
            return SPACING_CHANGES_WORDS  # nowhere -> now here; a compound the dictionary knows
        return None if all(speller.is_word(t.text) for t in after) else SPACING_CHANGES_WORDS
    if len(after) == 1 and len(before) > 1:
        if not speller.is_word(after[0].text):
            return SPACING_CHANGES_WORDS
        if all(speller.is_word(t.text) for t in before):
            return SPACING_CHANGES_WORDS  # now here -> nowhere, a gente -> agente
        return None
    return SPACING_CHANGES_WORDS  # a space moved between words: neither a join nor a split


def _joined_points(edit: Edit) -> Iterable[tuple[str, int]]:
    """Each gap the edit opens or closes, as (the text where it is closed, its offset there)."""
    old_kept, old_gaps = _split(edit.repair.original, is_horizontal_space)
    _, new_gaps = _split(edit.repair.replacement, is_horizontal_space)
    old_at = new_at = edit.start
    for i, (old, new) in enumerate(zip(old_gaps, new_gaps, strict=True)):
        if 0 < i < len(old_kept) and (old == "") != (new == ""):
            yield (edit.before.text, old_at) if old == "" else (edit.edited_text, new_at)
        old_at += len(old) + 1
        new_at += len(new) + 1


def _core_around(text: str, point: int) -> str | None:
    """The run of non-spaces around ``point`` less the marks at its ends, if ``point`` falls
    strictly inside it."""
    low = point
    while low > 0 and not text[low - 1].isspace():
        low -= 1
    high = point
    while high < len(text) and not text[high].isspace():
        high += 1
    while low < high and not is_word_char(text[low]):
        low += 1
    while high > low and not is_word_char(text[high - 1]):
        high -= 1
    return text[low:high] if low < point < high else None


def _compound_gap(edit: Edit, speller: Speller | None) -> str | None:
    """A gap opened or closed beside a mark between words (``well-known``, ``tax,approved``):
    refused when the dictionary knows the unspaced form as one word, or it holds a name."""
    for text, point in _joined_points(edit):
        if is_word_char(text[point - 1]) and is_word_char(text[point]):
            continue  # letters on both sides: a join or split of words, judged by word runs
        core = _core_around(text, point)
        if core is None:
            continue  # a mark at a word's edge: "ment ." -> "ment."
        if any(edit.target.name_like(t) for t in word_tokens(core, edit.target.locale)):
            return PROTECTED_NAME
        if speller is None:
            return LANGUAGE_NOT_COVERED
        if speller.is_word(core):
            return SPACING_CHANGES_WORDS
    return None


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
        if evidence.speller is None:
            return LANGUAGE_NOT_COVERED
        reason = _join_or_split(edit, before, after, evidence.speller)
        if reason is not None:
            return reason
    return _compound_gap(edit, evidence.speller)


# --- punctuation_corruption -----------------------------------------------------------------


def _is_separator(ch: str) -> bool:
    return is_plain_mark(ch) or is_horizontal_space(ch)


def _marks(text: str) -> str:
    return "".join(ch for ch in text if not is_horizontal_space(ch))


def _is_subsequence(short: str, long: str) -> bool:
    rest = iter(long)
    return all(ch in rest for ch in short)


def _separator_change(old: str, new: str) -> tuple[str | None, int]:
    """Why one separator run may not become ``new`` by removals alone, and how many marks go."""
    if not _is_subsequence(new, old):
        return PUNCTUATION_INTRODUCED, 0
    old_marks, new_marks = _marks(old), _marks(new)
    lost = Counter(old_marks) - Counter(new_marks)
    if not lost:
        return NOT_PUNCTUATION_ONLY, 0  # only spaces changed: that is spacing
    if any(is_quote_mark(ch) for ch in lost):
        return PROTECTED_QUOTATION, 0
    if any(is_sentence_terminal(ch) for ch in lost):
        return SENTENCE_TERMINAL_CHANGED, 0  # "!!", "?!", "..": tone, not corruption
    if _has_space(old) and not _has_space(new):
        return NOT_PUNCTUATION_ONLY, 0  # would glue two words together
    return None, len(old_marks) - len(new_marks)


def _repeat_fixed(run: str) -> str | None:
    """A run of one separator mark written twice or more (``,,``, ``: :``) without its repeats:
    the first mark and what follows the last. None for any other run."""
    marks = [i for i, ch in enumerate(run) if not is_horizontal_space(ch)]
    if len(marks) < 2 or not is_separator_mark(run[marks[0]]):
        return None
    if any(run[i] != run[marks[0]] for i in marks):
        return None
    return run[: marks[0] + 1] + run[marks[-1] + 1 :]


def _word_before(text: str, end: int) -> str:
    start = end
    while start > 0 and is_word_char(text[start - 1]):
        start -= 1
    return text[start:end]


def _word_after(text: str, start: int) -> str:
    end = start
    while end < len(text) and is_word_char(text[end]):
        end += 1
    return text[start:end]


def _run_fix(text: str, at: int, old: str, new: str, speller: Speller | None) -> str | None:
    """Whether the run ``old`` at ``text[at:]`` becoming ``new`` is a fix the rules compute:
    the repeats of a separator go (not between two word characters: ``std::map``), or one mark
    stuck inside a word goes when the dictionary accepts the word without it, rejects it with
    it, and the two parts are not both words (``govern-ment``; ``e-mail`` stays)."""
    glued = at > 0 and at + len(old) < len(text) and not _has_space(old)
    glued = glued and is_word_char(text[at - 1]) and is_word_char(text[at + len(old)])
    fixed = _repeat_fixed(old)
    if fixed is not None:
        return None if fixed == new and not glued else NOT_DUPLICATED_OR_STRAY
    if len(old) != 1 or new or not glued:
        return NOT_DUPLICATED_OR_STRAY
    if speller is None:
        return LANGUAGE_NOT_COVERED
    left, right = _word_before(text, at), _word_after(text, at + 1)
    if speller.is_word(left + old + right) or not speller.is_word(left + right):
        return NOT_DUPLICATED_OR_STRAY
    if speller.is_word(left) and speller.is_word(right):
        return NOT_DUPLICATED_OR_STRAY  # a missing space as likely as a stray mark
    return None


def _separator_window(edit: Edit) -> tuple[int, int]:
    """The changed stretch of the window, widened to whole separator runs.

    Outside it both texts are the same characters, so only this stretch needs comparing. The
    edit's window ends at letters, so no separator run crosses it.
    """
    text = edit.before.text
    low, high = edit.start, edit.start + len(edit.repair.original)
    while low > 0 and _is_separator(text[low - 1]):
        low -= 1
    while high < len(text) and _is_separator(text[high]):
        high += 1
    return low, high


def _words(tokens: Sequence[Token]) -> list[str]:
    return [token.text for token in tokens if token.kind != "none"]


def _check_punctuation(edit: Edit, evidence: Evidence) -> str | None:
    """Marks removed only as the rules compute (``_run_fix``); at most two."""
    low, high = _separator_window(edit)
    grown = len(edit.repair.replacement) - len(edit.repair.original)
    text = edit.before.text
    old_kept, old_runs = _split(text[low:high], _is_separator)
    new_kept, new_runs = _split(edit.edited_text[low : high + grown], _is_separator)
    if old_kept != new_kept:
        if _words(edit.before.tokens) != _words(edit.edited):
            return LETTERS_OR_NUMBERS_CHANGED
        return NOT_PUNCTUATION_ONLY  # an emoji, a symbol of tone or a line break
    removed = 0
    at = low
    for old, new in zip(old_runs, new_runs, strict=True):
        if old != new:
            reason, lost = _separator_change(old, new)
            reason = reason or _run_fix(text, at, old, new, evidence.speller)
            if reason is not None:
                return reason
            removed += lost
        at += len(old) + 1  # the run, then the kept character after it
    if removed > _MAX_PUNCTUATION_REMOVED:
        return TOO_MANY_PUNCTUATION_CHANGES
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
    """A word the dictionary rejects becomes the dictionary's own fix of it: same script and
    case, at most two edits."""
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
    speller = evidence.speller
    if speller is None:
        return LANGUAGE_NOT_COVERED
    if speller.knows(old.text):
        return REAL_WORD_SWAP  # moot -> most, emitir -> omitir, colour -> color, a name
    if not speller.is_word(new.text):
        return REPLACEMENT_NOT_A_WORD
    if _in_a_foreign_run(edit, old, speller):
        return FOREIGN_WORD  # Rock and Roll in a French article: "and" is no typo of "ans"
    if edit.target.role == "author":
        return PROTECTED_NAME  # an author line is names
    if has_upper(old.text) and evidence.vocabulary.count(new.text) == 0:
        return PROTECTED_NAME  # a name, or a noun the article never writes correctly
    if not speller.fixes(old.text, new.text, edit.target.budget.charge_suggestion):
        return NOT_DICTIONARY_FIX  # not what the dictionary makes of it
    return None


def _in_a_foreign_run(edit: Edit, old: Token, speller: Speller) -> bool:
    """Whether the word next to ``old``, before or after it, is no word of the language either.

    An obvious typo is a lone misspelling among words of the article's language. Two words
    side by side that its dictionaries reject are something else: a phrase of another
    language (Rock and Roll in a French article, where "and" is one edit from "ans"), a
    title or motto left in the original, code, a name: not unequivocal, so no fix (spec
    7.2: in doubt, keep the original). A lone word still takes its dictionary fix.
    """
    start = edit.lo + old.start
    return any(
        not speller.knows(word) for word in _words_beside(edit.target, start, old.end - old.start)
    )


def _words_beside(target: Target, start: int, length: int) -> list[str]:
    """The letter words right before and after ``target.text[start:start + length]``, read
    from a window widened until it holds them or the whole text: the same words whatever
    window the repair was judged in."""
    margin = 16
    while True:
        window = target.window(start, start + length, margin)
        words = [t for t in window.tokens if t.kind == "letter"]
        at = next((n for n, t in enumerate(words) if window.lo + t.start == start), None)
        if at is None:
            return []
        before = words[at - 1 : at] if at else []
        after = words[at + 1 : at + 2]
        whole = window.lo == 0 and window.hi == len(target.text)
        if whole or ((before or window.lo == 0) and (after or window.hi == len(target.text))):
            return [t.text for t in before + after]
        margin *= 2


CATEGORY_CHECKS: dict[str, Callable[[Edit, Evidence], str | None]] = {
    "encoding": _check_encoding,
    "unicode": _check_unicode,
    "spacing": _check_spacing,
    "punctuation_corruption": _check_punctuation,
    "obvious_typo": _check_typo,
}
