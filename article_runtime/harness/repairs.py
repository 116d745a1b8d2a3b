"""Review the model's small repairs (spec 7, 8.2 steps 1-8, 8.3).

A repair is accepted only when its category explains every character it changes (see
``repair_checks``) and it touches no number, date, score, name or quotation (see
``repair_protections``). Several repairs that touch the same or neighbouring tokens of one target
are judged together too: their combined edit must pass the same rules as one repair, so a
forbidden change cannot be split into pieces that each look allowed. A rejected repair leaves
its text as it was; the other repairs and the selection go on.

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
    ``hidden_character_added``  the replacement writes a control, format, private-use,
                                unassigned, default-ignorable, bidi-control or variation-selector
                                character (any category: a ``unicode`` fix only removes them)
    ``mixed_script_added``      a word the edit writes mixes scripts (UTS #39) where the words it
                                replaces did not: a Cyrillic ``о`` in a Latin word
    ``verbatim_block``          a code block: only ``encoding`` and ``unicode`` fixes may touch it
    ``verbatim_whitespace``     a code block: a space, tab or line break would change
    ``protected_number``        a number, a numeric character (Ⅻ, ½, ², 三) or a sign or unit
                                that belongs to a number (-15, $12, 35%, +3) would change
    ``protected_date``          a date (12.05.2024, 12/05) would change, separators included
    ``protected_score``         a score-like run (3-1, 2:0) would change, separators included
    ``protected_name``          a proper name would change (see ``article_runtime.text.names``)
    ``protected_quotation``     text inside quotation marks, or the marks themselves, would change
Category checks (step 7):
    ``not_mojibake``            encoding: ftfy finds nothing to fix in the original
    ``encoding_fix_mismatch``   encoding: the replacement is not ftfy's fix, or ftfy reading the
                                whole target would not fix it so
    ``not_unicode_fix``         unicode: the original has no invisible debris and is NFC
    ``unicode_fix_mismatch``    unicode: the replacement is not the original in NFC without
                                its invisible debris (it adds, keeps or changes something)
    ``not_spacing_only``        spacing: more than horizontal spaces change, a line break
                                changes, or a gap becomes anything but one space or none
    ``spacing_changes_words``   spacing: splits a word the dictionary knows (nowhere, a
                                compound), into a non-word, joins parts that are all words (a
                                phrase: now here, a gente) or into a non-word, moves a space
                                between words, or re-spaces a compound the dictionary knows
                                around a mark (well-known)
    ``language_not_covered``    spacing, typo, punctuation: no dictionary for the language
    ``letters_or_numbers_changed``    punctuation: a letter or number changes
    ``not_punctuation_only``    punctuation: something other than a mark is removed (emoji and
                                other So symbols carry tone), only spaces change, or two words
                                would touch
    ``punctuation_introduced``  punctuation: a mark is added or moved (only removal is allowed)
    ``not_duplicated_or_stray`` punctuation: not the computed fix: a repeated comma, colon or
                                semicolon keeps its first mark, or one mark stuck inside a word
                                goes when the dictionary accepts the word without it
    ``too_many_punctuation_changes``  punctuation: more than two marks removed
    ``sentence_terminal_changed``     punctuation: a . ? ! 。 would go (!!, ?!, .. are tone)
    ``not_single_word_typo``    typo: not exactly one word replaced by one word
    ``typo_not_alphabetic``     typo: kana or ideographs (a changed one is another word)
    ``typo_changes_script``     typo: the word mixes scripts or the replacement's script differs
    ``case_changed``            typo: capitalization changes
    ``typo_too_large``          typo: more than 2 grapheme edits or more than 1/3 of the word
    ``real_word_swap``          typo: the original is a word (of a dictionary of the language,
                                in any case, or used twice in the article): moot -> most,
                                emitir -> omitir, colour -> color
    ``replacement_not_a_word``  typo: no dictionary of the language accepts the replacement
    ``foreign_word``            typo: the original is a word of another language set among
                                other words of it (a title, a motto, a quotation)
    ``not_dictionary_fix``      typo: no dictionary of the language makes this fix: neither its
                                first suggestion nor the most frequent of its closest ones
Judged together (step 7): ``combined_<reason>`` when the repair, added to the accepted repairs
on neighbouring tokens of the same target, fails with ``<reason>``: repairs of one category as
one combined edit over their joint span; of several categories, the repair on the text its
neighbours left.
Cost: ``review_budget_exhausted``  judging the repair would read whole blocks again beyond what
                                one review may (``repair_edit.READ_BUDGET`` characters: ftfy
                                on an edited block, the names of the text a mixed group leaves,
                                a window with no cut nearby); only blocks of hundreds of
                                kilobytes with dozens of such repairs get here.
Safety net: ``review_failed``   the review itself raised; the repair is rejected, never applied.

Protection policy: numbers bind every category; signs and units of numbers bind all but the
computed fixes (``encoding``, ``unicode``). ``encoding``, ``unicode`` and ``spacing`` (whose own
checks keep letters and digits) may touch quotations and date/score separators, and may re-space
or clean a name as long as no name is split and no two are joined; ``encoding`` fixes may also
restore a name. ``punctuation_corruption`` and ``obvious_typo`` may touch none of them.

Typo policy: one letter token into one letter token of the same single script and capitalization
pattern, Damerau distance over graphemes ``d`` with ``1 <= d <= 2`` and ``3*d <= len(word)``;
the original must be rejected by every dictionary of the language (``text.spelling``) and not
used twice in the article, the replacement accepted by one and be that dictionary's own fix of
the original; a capitalized word (maybe a name) needs the replacement attested in the article,
and an author line gets no typo fix.

Code blocks (``roles``) are verbatim: only ``encoding`` and ``unicode`` may touch them, and no
repair may change their whitespace or indentation.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from article_runtime.errors import ArticleRuntimeError
from article_runtime.harness.repair_checks import CATEGORY_CHECKS, Evidence
from article_runtime.harness.repair_edit import (
    WINDOW_MARGIN,
    Budget,
    BudgetExhausted,
    Edit,
    Target,
    TargetRole,
)
from article_runtime.harness.repair_protections import PROTECTIONS
from article_runtime.model.proposal import Repair, RepairCategory
from article_runtime.text.spelling import speller_for
from article_runtime.text.vocabulary import Vocabulary

__all__ = ["ReviewedRepair", "apply_repairs", "review_repairs"]

ACCEPTED_PREFIX = "accepted_"
COMBINED_PREFIX = "combined_"
UNKNOWN_TARGET = "unknown_target"
ORIGINAL_NOT_FOUND = "original_not_found"
ORIGINAL_AMBIGUOUS = "original_ambiguous"
NO_CHANGE = "no_change"
SPLITS_CHARACTER = "splits_character"
OVERLAPPING_REPAIR = "overlapping_repair"
CROSSES_LINK_BOUNDARY = "crosses_link_boundary"
REVIEW_BUDGET_EXHAUSTED = "review_budget_exhausted"
REVIEW_FAILED = "review_failed"


@dataclass(frozen=True, slots=True)
class ReviewedRepair:
    repair: Repair
    accepted: bool
    reason: str  # "accepted_<category>" when accepted, else a categorical rejection code
    start: int | None  # offset of repair.original in the target text when located

    @property
    def end(self) -> int | None:
        return None if self.start is None else self.start + len(self.repair.original)


@dataclass
class _Article:
    targets: Mapping[str, str]
    roles: Mapping[str, TargetRole]
    locale: str
    language: str | None
    budget: Budget
    margin: int | None
    _read: dict[str, Target] = field(default_factory=dict)

    def target(self, target_id: str) -> Target:
        if target_id not in self._read:
            text, role = self.targets[target_id], self.roles.get(target_id, "text")
            self._read[target_id] = Target(text, self.locale, self.budget, self.margin, role=role)
        return self._read[target_id]

    @cached_property
    def evidence(self) -> Evidence:
        vocabulary = Vocabulary(self.targets.values(), self.locale)
        return Evidence(vocabulary, speller_for(self.language))


# --- location -------------------------------------------------------------------------------


def _locate(original: str, text: str) -> int | str:
    """The single start of ``original`` in ``text``, or a rejection code."""
    first = text.find(original)
    if first < 0:
        return ORIGINAL_NOT_FOUND
    if text.find(original, first + 1) >= 0:
        return ORIGINAL_AMBIGUOUS
    return first


# --- review ---------------------------------------------------------------------------------


def _judge(edit: Edit, category: RepairCategory, evidence: Evidence) -> str | None:
    """Protections first (step 6), then the category's own rule (step 7)."""
    for protect in PROTECTIONS:
        reason = protect(edit, category)
        if reason is not None:
            return reason
    return CATEGORY_CHECKS[category](edit, evidence)


def _verdict(
    repair: Repair,
    article: _Article,
    accepted: Sequence[ReviewedRepair],
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
    if target.splits_grapheme(start, end):
        return SPLITS_CHARACTER, start
    if any(start < (other.end or 0) and (other.start or 0) < end for other in accepted):
        return OVERLAPPING_REPAIR, start
    if any(start < edge < end for edge in boundaries):
        return CROSSES_LINK_BOUNDARY, start
    failed = _judge(Edit.make(repair, target, start), repair.category, article.evidence)
    return failed or ACCEPTED_PREFIX + repair.category, start


def _neighbours(
    target: Target, new: ReviewedRepair, accepted: Sequence[ReviewedRepair]
) -> list[ReviewedRepair]:
    """``new`` and every accepted repair linked to it by touching or shared tokens."""
    spans = [(r, target.token_span(r.start or 0, r.end or 0)) for r in accepted]
    group = [new]
    low, high = target.token_span(new.start or 0, new.end or 0)
    grown = True
    while grown:
        grown = False
        for other, (a, b) in spans:
            if other not in group and a <= high and low <= b:
                group.append(other)
                low, high = min(low, a), max(high, b)
                grown = True
    return group


def _combined_edit(target: Target, group: Sequence[ReviewedRepair]) -> Edit:
    """One repair of the group's category spanning the whole group: what it does together."""
    start = min(r.start or 0 for r in group)
    end = max(r.end or 0 for r in group)
    shifted = [dataclasses.replace(r, start=(r.start or 0) - start) for r in group]
    original = target.text[start:end]
    combined = group[0].repair.model_copy(
        update={"original": original, "replacement": apply_repairs(original, shifted)}
    )
    return Edit.make(combined, target, start)


def _edit_in_context(target: Target, new: ReviewedRepair, others: Sequence[ReviewedRepair]) -> Edit:
    """``new`` applied to the target as its neighbours (of other categories) left it."""
    text = apply_repairs(target.text, others)
    replaced = tuple(sorted((r.start or 0, r.end or 0, len(r.repair.replacement)) for r in others))
    context = Target(
        text, target.locale, target.budget, target.margin, target, replaced, role=target.role
    )
    shift = sum(
        len(r.repair.replacement) - len(r.repair.original)
        for r in others
        if (r.start or 0) < (new.start or 0)
    )
    return Edit.make(new.repair, context, (new.start or 0) + shift)


def _combined_verdict(
    article: _Article, new: ReviewedRepair, accepted: Sequence[ReviewedRepair]
) -> str | None:
    """Why ``new`` may not stand with the accepted repairs beside it, or None.

    Repairs of one category must pass as one repair over their joint span. Where categories
    differ no single rule fits the joint edit, so ``new`` must pass its own rule on the text
    its neighbours produced: the result is then reached by steps that each pass.
    """
    target = article.target(new.repair.target_id)
    group = _neighbours(target, new, accepted)
    if len(group) == 1:
        return None
    if len({r.repair.category for r in group}) == 1:
        edit = _combined_edit(target, group)
    else:
        edit = _edit_in_context(target, new, [r for r in group if r is not new])
    failed = _judge(edit, new.repair.category, article.evidence)
    return None if failed is None else COMBINED_PREFIX + failed


def _review_one(
    repair: Repair,
    article: _Article,
    accepted: Sequence[ReviewedRepair],
    boundaries: Sequence[int],
) -> ReviewedRepair:
    reason, start = _verdict(repair, article, accepted, boundaries)
    reviewed = ReviewedRepair(repair, reason.startswith(ACCEPTED_PREFIX), reason, start)
    if reviewed.accepted:
        failed = _combined_verdict(article, reviewed, accepted)
        if failed is not None:
            return ReviewedRepair(repair, False, failed, start)
    return reviewed


def review_repairs(
    repairs: Sequence[Repair],
    targets: Mapping[str, str],
    *,
    boundaries: Mapping[str, Sequence[int]] | None = None,
    locale: str | None = None,
    roles: Mapping[str, TargetRole] | None = None,
    margin: int | None = WINDOW_MARGIN,
) -> list[ReviewedRepair]:
    """Accept or reject each repair, in order. Never raises on bad repairs.

    Each repair is judged alone against the target as given, then with the repairs already
    accepted on neighbouring tokens of the same target. ``boundaries`` are offsets (link anchor
    edges) a repair may not cross. ``locale`` is the article's language: it picks the ICU rules
    and the dictionaries that decide what is a word. ``roles`` says which targets are code
    blocks (verbatim) or author and title lines (names); others are text. Each change is read
    in a window of ``margin`` characters each side (``repair_edit``); ``margin=None`` reads
    whole targets for every repair: the same verdicts at a cost that grows with the block
    (tests compare them).
    """
    budget = Budget() if margin is not None else Budget(None)
    article = _Article(targets, roles or {}, locale or "root", locale, budget, margin)
    accepted: dict[str, list[ReviewedRepair]] = {}
    reviewed: list[ReviewedRepair] = []
    for repair in repairs:
        same_target = accepted.setdefault(repair.target_id, [])
        edges = (boundaries or {}).get(repair.target_id, ())
        try:
            result = _review_one(repair, article, same_target, edges)
        except BudgetExhausted:
            result = ReviewedRepair(repair, False, REVIEW_BUDGET_EXHAUSTED, None)
        except Exception:  # a crash here must cost one repair, never the article
            result = ReviewedRepair(repair, False, REVIEW_FAILED, None)
        if result.accepted:
            same_target.append(result)
        reviewed.append(result)
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
