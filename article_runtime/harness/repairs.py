"""Review the model's small repairs one by one (spec 7, 8.2 step 7, 8.3).

A repair is accepted only when the harness can show, without the model, that it fixes an
unambiguous defect of its category and touches no number, date, score, name or quotation. A
rejected repair leaves its text as it was; the other repairs and the selection go on.
This module locates each repair and decides; ``repair_edit`` holds the repair applied to its
target with library diffs, ``repair_checks`` the protections and the five category checks.

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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from article_runtime.errors import ArticleRuntimeError
from article_runtime.harness.repair_checks import CATEGORY_CHECKS, PROTECTIONS
from article_runtime.harness.repair_edit import Edit, Target
from article_runtime.model.proposal import Repair, RepairCategory
from article_runtime.text.segments import graphemes
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
REVIEW_FAILED = "review_failed"


@dataclass(frozen=True, slots=True)
class ReviewedRepair:
    repair: Repair
    accepted: bool
    reason: str  # "accepted_<category>" when accepted, else a categorical rejection code
    start: int | None  # offset of repair.original in the target text when located


@dataclass
class _Article:
    targets: Mapping[str, str]
    locale: str
    _read: dict[str, Target] = field(default_factory=dict)
    _vocabulary: Vocabulary | None = None

    def target(self, target_id: str) -> Target:
        if target_id not in self._read:
            self._read[target_id] = Target.read(self.targets[target_id], self.locale)
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
    edit = Edit.make(repair, target, start, article.locale)
    category: RepairCategory = repair.category
    for protect in PROTECTIONS:
        reason = protect(edit, category)
        if reason is not None:
            return reason, start
    failed = CATEGORY_CHECKS[category](edit, article.vocabulary)
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
