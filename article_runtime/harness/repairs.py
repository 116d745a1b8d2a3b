"""Review the model's small repairs one by one (spec 7, 8.2 step 7, 8.3).

A repair is accepted only when the harness can show, without the model, that it fixes an
unambiguous defect of its category and touches no number, date, score, name or quotation. A
rejected repair leaves its text as it was; the other repairs and the selection go on.

Reason codes (``ReviewedRepair.reason``), one vocabulary for traces, events and people:

Accepted: ``accepted_<category>`` (``accepted_encoding``, ``accepted_obvious_typo``...).

Location (spec 8.2 steps 1-3):
    ``unknown_target``          the target ID is not a block or metadata candidate
    ``original_not_found``      the original fragment does not occur in the target exactly
    ``original_ambiguous``      it occurs more than once
    ``no_change``               replacement equals original
    ``splits_character``        the fragment starts or ends inside a grapheme
    ``overlapping_repair``      it overlaps a repair already accepted on the same target
    ``crosses_link_boundary``   it straddles a link anchor edge
Protections (step 6):
    ``protected_number``        a number token or numeric character (Ⅻ, ½, ², 三) would change
    ``protected_date``          a date (12.05.2024, 12/05) would change, separators included
    ``protected_score``         a score-like run (3-1, 2:0) would change, separators included
    ``protected_name``          a proper name would change (see ``article_runtime.text.names``)
    ``protected_quotation``     text inside quotation marks, or the marks themselves, would change
Category checks (step 7):
    ``not_mojibake``            encoding: neither fragment nor its words look like mojibake
    ``encoding_fix_mismatch``   encoding: the replacement is not what ftfy restores
    ``not_unicode_fix``         unicode: not a normalization or invisible-debris fix
    ``not_spacing_only``        spacing: more than whitespace changes
    ``spacing_changes_words``   spacing: joins words the article uses on their own, or splits one
    ``letters_or_numbers_changed``    punctuation: a letter or number token changes
    ``not_punctuation_only``    punctuation: a changed character is not punctuation or a plain
                                symbol (emoji and other So symbols carry tone)
    ``punctuation_introduced``  punctuation: adds a mark the fragment did not have
    ``too_many_punctuation_changes``  punctuation: more than two marks change
    ``sentence_terminal_changed``     punctuation: . ? ! 。 differ beyond a doubled mark
    ``not_single_word_typo``    typo: not exactly one word replaced by one word
    ``typo_not_alphabetic``     typo: kana or ideographs (a changed one is another word)
    ``case_changed``            typo: capitalization changes
    ``typo_too_large``          typo: more than 2 grapheme edits or more than 1/3 of the word
    ``real_word_swap``          typo: the article uses the original word elsewhere
    ``typo_unattested``         typo: two edits but the article never uses the replacement
Safety net: ``review_failed``   the review itself raised; the repair is rejected, never applied.

Protection policy: numbers bind every category. ``encoding``, ``unicode`` and ``spacing``
(whose own checks keep letters and digits) may touch quotations and date/score separators, and
may re-space or clean a name as long as no name is split and no two are joined; ftfy-verified
``encoding`` fixes may also restore a name. ``punctuation_corruption`` and ``obvious_typo`` may
touch none of them.

Typo policy: one letter token into one letter token, same capitalization pattern, Damerau
distance over graphemes ``d`` with ``1 <= d <= 2`` and ``3*d <= len(word)``; rejected when the
article uses the original word elsewhere (a real word of this article); ``d == 2`` needs the
replacement attested elsewhere; a capitalized sentence-initial word (maybe a name) needs the
replacement attested in lowercase.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import ftfy
from ftfy.badness import is_bad

from article_runtime.errors import ArticleRuntimeError
from article_runtime.model.proposal import Repair, RepairCategory
from article_runtime.text.chars import is_plain_mark, is_quote_mark, is_sentence_terminal
from article_runtime.text.edits import CharChange, TokenChange, char_changes, edit_distance
from article_runtime.text.edits import token_changes as diff_tokens
from article_runtime.text.fold import dirt, unicode_fold
from article_runtime.text.names import has_upper, name_starts
from article_runtime.text.numbers import looks_like_date, numeric_runs, numeric_signature
from article_runtime.text.quotes import Span, quoted_spans
from article_runtime.text.segments import Token, graphemes, nfc, word_tokens
from article_runtime.text.vocabulary import Vocabulary

__all__ = ["ReviewedRepair", "apply_repairs", "review_repairs"]

ACCEPTED_PREFIX = "accepted_"
UNKNOWN_TARGET = "unknown_target"
ORIGINAL_NOT_FOUND = "original_not_found"
ORIGINAL_AMBIGUOUS = "original_ambiguous"
NO_CHANGE = "no_change"
SPLITS_CHARACTER = "splits_character"
OVERLAPPING_REPAIR = "overlapping_repair"
CROSSES_LINK_BOUNDARY = "crosses_link_boundary"
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
REVIEW_FAILED = "review_failed"

_MAX_TYPO_EDITS = 2
_MAX_PUNCTUATION_CHANGES = 2
# Categories that keep letters and digits (checked by their own rule) and so may touch names,
# quotations and the separators of dates and scores.
_CONTENT_PRESERVING: frozenset[str] = frozenset({"encoding", "unicode", "spacing"})


@dataclass(frozen=True, slots=True)
class ReviewedRepair:
    repair: Repair
    accepted: bool
    reason: str  # "accepted_<category>" when accepted, else a categorical rejection code
    start: int | None  # offset of repair.original in the target text when located


@dataclass(frozen=True, slots=True)
class _Target:
    """What the protections need to know about one target, computed once."""

    text: str
    tokens: list[Token]
    names: set[int]
    quotes: list[Span]

    @classmethod
    def read(cls, text: str, locale: str) -> _Target:
        tokens = word_tokens(text, locale, keep_spaces=True)
        return cls(text, tokens, name_starts(tokens, text, locale), quoted_spans(text, tokens))


@dataclass(frozen=True, slots=True)
class _Edit:
    """One repair applied to its whole target, with library diffs in target offsets."""

    repair: Repair
    target: _Target
    start: int
    edited_text: str
    edited: list[Token]
    tokens: list[TokenChange]
    chars: list[CharChange]

    @classmethod
    def make(cls, repair: Repair, target: _Target, start: int, locale: str) -> _Edit:
        end = start + len(repair.original)
        text = target.text[:start] + repair.replacement + target.text[end:]
        edited = word_tokens(text, locale, keep_spaces=True)
        chars = [
            CharChange(c.start + start, c.end + start, c.removed, c.inserted)
            for c in char_changes(repair.original, repair.replacement)
        ]
        return cls(repair, target, start, text, edited, diff_tokens(target.tokens, edited), chars)

    def touches(self, start: int, end: int) -> bool:
        """Whether a changed character falls in ``[start, end)`` (insertions strictly inside)."""
        for change in self.chars:
            if change.start == change.end and start < change.start < end:
                return True
            if change.start < change.end and change.start < end and start < change.end:
                return True
        return False


@dataclass
class _Article:
    targets: Mapping[str, str]
    locale: str
    _read: dict[str, _Target] = field(default_factory=dict)
    _vocabulary: Vocabulary | None = None

    def target(self, target_id: str) -> _Target:
        if target_id not in self._read:
            self._read[target_id] = _Target.read(self.targets[target_id], self.locale)
        return self._read[target_id]

    @property
    def vocabulary(self) -> Vocabulary:
        if self._vocabulary is None:
            self._vocabulary = Vocabulary(self.targets.values(), self.locale)
        return self._vocabulary


# --- location -------------------------------------------------------------------------------


def _locate(original: str, text: str) -> int | str:
    """The single start of ``original`` in ``text``, or a rejection code."""
    first = text.find(original)
    if first < 0:
        return ORIGINAL_NOT_FOUND
    if text.find(original, first + 1) >= 0:
        return ORIGINAL_AMBIGUOUS
    return first


def _grapheme_edges(text: str) -> set[int]:
    edges, pos = {0}, 0
    for cluster in graphemes(text):
        pos += len(cluster)
        edges.add(pos)
    return edges


# --- protections ----------------------------------------------------------------------------


def _protect_numbers(edit: _Edit, category: str) -> str | None:
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


def _protect_names(edit: _Edit, category: str) -> str | None:
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


def _protect_quotations(edit: _Edit, category: str) -> str | None:
    if category in _CONTENT_PRESERVING:
        return None
    if any(edit.touches(span.start, span.end) for span in edit.target.quotes):
        return PROTECTED_QUOTATION
    return None


_PROTECTIONS = (_protect_numbers, _protect_names, _protect_quotations)


# --- category checks ------------------------------------------------------------------------


def _check_encoding(edit: _Edit, _: Vocabulary) -> str | None:
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


def _check_unicode(edit: _Edit, _: Vocabulary) -> str | None:
    """Same text once folded, and strictly cleaner: NFC fixed or debris removed."""
    original, replacement = edit.repair.original, edit.repair.replacement
    if unicode_fold(original) != unicode_fold(replacement) or nfc(replacement) != replacement:
        return NOT_UNICODE_FIX
    if nfc(original) == original and dirt(replacement) >= dirt(original):
        return NOT_UNICODE_FIX
    return None


def _squeeze(text: str) -> str:
    return "".join(ch for ch in text if not ch.isspace())


def _check_spacing(edit: _Edit, vocabulary: Vocabulary) -> str | None:
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


def _check_punctuation(edit: _Edit, _: Vocabulary) -> str | None:
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


def _check_typo(edit: _Edit, vocabulary: Vocabulary) -> str | None:
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


_CATEGORY_CHECKS: dict[str, Callable[[_Edit, Vocabulary], str | None]] = {
    "encoding": _check_encoding,
    "unicode": _check_unicode,
    "spacing": _check_spacing,
    "punctuation_corruption": _check_punctuation,
    "obvious_typo": _check_typo,
}


# --- review ---------------------------------------------------------------------------------


def _verdict(
    repair: Repair,
    article: _Article,
    accepted: Sequence[tuple[int, int]],
    boundaries: Sequence[int],
) -> tuple[str, int | None]:
    if repair.target_id not in article.targets:
        return UNKNOWN_TARGET, None
    target = article.target(repair.target_id)
    located = _locate(repair.original, target.text)
    if isinstance(located, str):
        return located, None
    start, end = located, located + len(repair.original)
    if repair.replacement == repair.original:
        return NO_CHANGE, start
    edges = _grapheme_edges(target.text)
    if start not in edges or end not in edges:
        return SPLITS_CHARACTER, start
    if any(start < other_end and other_start < end for other_start, other_end in accepted):
        return OVERLAPPING_REPAIR, start
    if any(start < edge < end for edge in boundaries):
        return CROSSES_LINK_BOUNDARY, start
    edit = _Edit.make(repair, target, start, article.locale)
    category: RepairCategory = repair.category
    for protect in _PROTECTIONS:
        reason = protect(edit, category)
        if reason is not None:
            return reason, start
    failed = _CATEGORY_CHECKS[category](edit, article.vocabulary)
    return failed or ACCEPTED_PREFIX + category, start


def review_repairs(
    repairs: Sequence[Repair],
    targets: Mapping[str, str],
    *,
    boundaries: Mapping[str, Sequence[int]] | None = None,
    locale: str | None = None,
) -> list[ReviewedRepair]:
    """Accept or reject each repair alone, in order. Never raises on bad repairs.

    Every repair is judged against the target as given; one accepted repair only blocks later
    ones that overlap it. ``boundaries`` are offsets (link anchor edges) a repair may not cross.
    """
    article = _Article(targets, locale or "root")
    spans: dict[str, list[tuple[int, int]]] = {}
    reviewed: list[ReviewedRepair] = []
    for repair in repairs:
        accepted = spans.setdefault(repair.target_id, [])
        edges = (boundaries or {}).get(repair.target_id, ())
        try:
            reason, start = _verdict(repair, article, accepted, edges)
        except Exception:  # a crash here must cost one repair, never the article
            reason, start = REVIEW_FAILED, None
        ok = reason.startswith(ACCEPTED_PREFIX)
        if ok and start is not None:
            accepted.append((start, start + len(repair.original)))
        reviewed.append(ReviewedRepair(repair, ok, reason, start))
    return reviewed


def apply_repairs(text: str, accepted: Sequence[ReviewedRepair]) -> str:
    """Apply accepted repairs of ONE target (non-overlapping, by their start offsets).

    Rejected or unlocated entries are skipped, so the original text stays (spec 8.3).

    Raises:
        ArticleRuntimeError: ``repair_offset_mismatch`` if a repair's original is not at its
            start in ``text``, ``overlapping_repair`` if two accepted repairs overlap; both mean
            the caller passed repairs reviewed against another text.
    """
    chosen = sorted(
        (r for r in accepted if r.accepted and r.start is not None),
        key=lambda r: r.start or 0,
    )
    pieces: list[str] = []
    pos = 0
    for item in chosen:
        start = item.start or 0
        end = start + len(item.repair.original)
        if text[start:end] != item.repair.original:
            raise ArticleRuntimeError("repair_offset_mismatch", item.repair.target_id)
        if start < pos:
            raise ArticleRuntimeError(OVERLAPPING_REPAIR, item.repair.target_id)
        pieces.extend((text[pos:start], item.repair.replacement))
        pos = end
    pieces.append(text[pos:])
    return "".join(pieces)
