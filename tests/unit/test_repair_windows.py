"""Property tests: judging a repair on a window of its block decides exactly as judging it on
the whole block (issue 9, section 4: the review's cost follows the change, not the block).

Blocks are built from pieces of every kind the checks read (words of five languages, names,
numbers with signs, dates, scores, quotation marks of several conventions, doubled punctuation,
odd spaces, line breaks, CJK, emoji, combining marks, invisible debris, mojibake), and repairs
are real or hostile edits of random stretches in every category, several per block so groups
of neighbouring repairs are judged together too. ``margin=None`` is the reference: every repair
read against whole blocks. A margin of one character makes every window as small as it can be.
"""

from __future__ import annotations

import functools
from typing import cast

import ftfy
import wordfreq
from hypothesis import example, given, settings
from hypothesis import strategies as st

from article_runtime.harness.repairs import ReviewedRepair, review_repairs
from article_runtime.model.proposal import REPAIR_CATEGORIES, Repair, RepairCategory
from article_runtime.text.unicode_fix import unicode_fix

LANGUAGES = ("en", "pt", "es", "fr", "de")
SETTINGS = settings(max_examples=300, deadline=None)


@functools.cache
def _words(language: str) -> tuple[str, ...]:
    return tuple(w for w in wordfreq.top_n_list(language, 300) if w.isalpha())


def _mojibake(word: str) -> str:
    """UTF-8 read as Windows-1252, where it can be (ftfy undoes it)."""
    return word.encode("utf-8").decode("cp1252", errors="ignore")


# fmt: off
PIECES = (
    # names, capitals, numbers with their signs and units, dates, scores
    "João", "Silva", "NASA", "iPhone", "McDonald", "COVID19", "Über", "12", "-15", "$12",
    "35%", "+3", "1.500", "4,5", "3-1", "2:0", "12.05.2024", "12/05", "½",
    # punctuation, doubled or stray; sentence ends
    ",", ".", "..", ",,", "?.", "!", "!!", ";", ":", "—", "-", "…", "(", ")", "/",
    # apostrophes inside words
    "l'eau", "don't",
    # spaces and line breaks
    "  ", "\u00a0", "\t", "\u3000", "\n", "\u2028",
    # other scripts, emoji, combining marks, invisible debris, mojibake
    "東京", "で", "会った", "。", "、", "Москва", "😀", "👍🏽", "🇧🇷", "e\u0301", "cafe\u0301",
    "in\u200bvisible", "soft\u00adhyphen", "\u200e", "SÃ£o", "cafÃ©", "â€™", "Ã¼ber",
    # what a window's edge could cut from its context: a sign before a token that starts with
    # a letter and reads as a number, runs of one repeated word (a diff may slide along them),
    # abbreviations that do or do not end a sentence, unspaced scripts, numbers with separators
    "-A4", "+B12", "$A1", "A4%", "-COVID19", "ha ha ha", "the the", "la la la la", "etc.",
    "U.S.", "Dr.", "ภาษาไทย", "한국어", "1.500,25", "3:1", "(12)", "--", "\u00a0%", "2024-05-12",
)
# fmt: on
# Quotations of several conventions (paired: an unpaired mark quotes the rest of the block, and
# the quotation protection then decides before any window does, so only some blocks quote).
QUOTES = ("“sim”", "« oui »", "„ja“", "「東京」", '"yes"', "”", "’")


@st.composite
def broken_word(draw: st.DrawFn, language: str) -> tuple[str, str, RepairCategory]:
    """A common word with a real defect, the word, and the category that fixes it."""
    word = draw(st.sampled_from([w for w in _words(language) if len(w) >= 6]))
    cut = draw(st.integers(1, len(word) - 1))
    defects: list[tuple[str, str, RepairCategory]] = [
        (word[:cut] + word[cut + 1 :], word, "obvious_typo"),
        (word[:cut] + " " + word[cut:], word, "spacing"),
        (word[:cut] + "\u00ad" + word[cut:], word, "unicode"),
        (_mojibake(word), word, "encoding"),
        (word + ",,", word + ",", "punctuation_corruption"),
    ]
    return draw(st.sampled_from(defects))


Defect = tuple[int, str, str, RepairCategory]  # where, the broken text, its fix, its category


@st.composite
def blocks(draw: st.DrawFn) -> tuple[str, str, list[Defect]]:
    """A language, a block in it, and the defects planted in it with their fixes; a defect is
    sometimes glued to doubled punctuation, so fixes of two categories touch."""
    language = draw(st.sampled_from(LANGUAGES))
    words = _words(language)
    quoting = draw(st.integers(0, 3)) == 0
    pieces = PIECES + QUOTES if quoting else PIECES
    wrappings = [("", ""), ("", ""), ("“", "”"), ("« ", " »")] if quoting else [("", "")]
    defects: list[Defect] = []
    text = ""
    for _ in range(draw(st.integers(1, 60))):
        kind = draw(st.sampled_from(["word", "word", "capital", "piece", "broken", "glued"]))
        if kind in ("broken", "glued"):
            broken, fixed, category = draw(broken_word(language))
            opening, closing = draw(st.sampled_from(wrappings))
            text += opening
            defects.append((len(text), broken, fixed, category))
            text += broken
            if kind == "glued":
                defects.append((len(text), ",,", ",", "punctuation_corruption"))
                text += ",,"
            text += closing
        elif kind == "piece":
            text += draw(st.sampled_from(pieces))
        else:
            word = draw(st.sampled_from(words))
            text += word.capitalize() if kind == "capital" else word
        text += draw(st.sampled_from([" ", " ", " ", "", "  ", ". ", ", "]))
    return language, text, defects


def _hostile(original: str, draw: st.DrawFn) -> tuple[str, RepairCategory]:
    """A change of ``original`` and the category that would explain its kind of change: a
    computed fix, spaces put, taken or squeezed, a mark taken, a letter dropped, swapped or
    added. Most pass the category's character rules, so what the context says (words, names,
    numbers, quotes, neighbouring repairs) decides; sometimes the category is any other."""
    kind = draw(
        st.sampled_from(["ftfy", "unicode", "squeeze", "unspace", "space", "mark", "letter"])
    )
    at = draw(st.integers(0, len(original)))
    spaces = [i for i, ch in enumerate(original) if ch == " "]
    marks = [i for i, ch in enumerate(original) if not ch.isalnum() and not ch.isspace()]
    letters = [i for i, ch in enumerate(original) if ch.isalpha()]
    changed: dict[str, tuple[str, RepairCategory]] = {
        "ftfy": (ftfy.fix_encoding(original), "encoding"),
        "unicode": (unicode_fix(original), "unicode"),
        "squeeze": (original.replace("  ", " ", 1), "spacing"),
        "space": (original[:at] + " " + original[at:], "spacing"),
    }
    if spaces:
        gap = draw(st.sampled_from(spaces))
        changed["unspace"] = (original[:gap] + original[gap + 1 :], "spacing")
    if marks:
        mark = draw(st.sampled_from(marks))
        changed["mark"] = (original[:mark] + original[mark + 1 :], "punctuation_corruption")
    if letters:
        i = draw(st.sampled_from(letters))
        extra = draw(st.sampled_from(["e", "a", "é", "1", "\u200b", "’"]))
        typos = [
            original[:i] + original[i + 1 :],
            original[:i] + extra + original[i:],
            original[:i] + original[i + 1 : i + 2] + original[i] + original[i + 2 :],
        ]
        changed["letter"] = (draw(st.sampled_from(typos)), "obvious_typo")
    replacement, category = changed.get(kind, (original, "spacing"))
    if replacement == original:  # nothing of that kind to change here: add a stray mark
        replacement = original[:at] + draw(st.sampled_from([",", ".", "-", "%"])) + original[at:]
        category = "punctuation_corruption"
    if draw(st.integers(0, 3)) == 0:
        category = draw(st.sampled_from(CATEGORIES))
    return replacement, category


def _unique(text: str, start: int, length: int) -> str:
    """``text[start:start+length]``, grown until it occurs once (or reaches the end)."""
    end = min(start + length, len(text))
    while end < len(text) and text.count(text[start:end]) > 1:
        end += 1
    return text[start:end]


CATEGORIES = cast(tuple[RepairCategory, ...], REPAIR_CATEGORIES)


@st.composite
def proposals(draw: st.DrawFn) -> tuple[str, str, list[Repair]]:
    """A block and up to ten repairs: fixes of its defects (alone or with some text around),
    each in its own category or another, and hostile changes anywhere."""
    language, text, defects = draw(blocks())
    edits: list[tuple[str, str, RepairCategory]] = []
    for at, broken, fixed, category in defects[: draw(st.integers(0, 6))]:
        lo = max(at - draw(st.integers(0, 3)), 0)
        original = _unique(text, lo, at + len(broken) - lo + draw(st.integers(0, 2)))
        replacement = original[: at - lo] + fixed + original[at - lo + len(broken) :]
        picked = draw(st.sampled_from([category, category, category, *CATEGORIES]))
        edits.append((original, replacement, picked))
    for _ in range(draw(st.integers(0 if edits else 1, 8))):
        spot = draw(st.integers(0, len(text)))
        near: bool = draw(st.booleans())
        if defects and near:  # next to a defect, so it may join its group
            spot = min(
                max(draw(st.sampled_from(defects))[0] + draw(st.integers(-6, 6)), 0), len(text)
            )
        original = _unique(text, spot, draw(st.integers(1, 40)))
        original = original or text or "x"
        edits.append((original, *_hostile(original, draw)))
    order = draw(st.permutations(range(len(edits))))
    return (
        language,
        text,
        [
            Repair(
                target_id="b",
                original=edits[i][0],
                replacement=edits[i][1],
                category=edits[i][2],
                justification="generated",
            )
            for i in order
        ],
    )


def _verdicts(reviews: list[ReviewedRepair]) -> list[tuple[str, int | None]]:
    return [(r.reason, r.start) for r in reviews]


@SETTINGS
@given(proposals(), st.sampled_from([1, 8, 64]))
def test_a_window_decides_as_the_whole_block(
    proposal: tuple[str, str, list[Repair]], margin: int
) -> None:
    language, text, repairs = proposal
    targets = {"b": text}
    whole = review_repairs(repairs, targets, locale=language, margin=None)
    windowed = review_repairs(repairs, targets, locale=language, margin=margin)
    assert _verdicts(windowed) == _verdicts(whole), [
        (r.repair.original, r.repair.replacement, r.repair.category) for r in whole
    ]


# Marks whose direction their neighbours decide (", ') come more often: a space put before one
# can turn it from closing to opening, and quote everything after it.
MARKS = ('"', '"', "'", "'", "“", "”", "«", "»", "„", "’", "")


@st.composite
def quoted_proposals(draw: st.DrawFn) -> tuple[str, list[Repair]]:
    """Distinct words, each followed by a quotation mark, spaces and doubled commas; pairs of
    neighbouring repairs: a space put or taken next to the mark (spacing), then a comma taken
    from the run right after (punctuation). The space can turn a closing mark into an opening
    one, and the comma the second repair removes becomes quoted only in what the first left."""
    count = draw(st.integers(2, 24))
    words = [f"x{chr(97 + n // 26)}{chr(97 + n % 26)}" for n in range(count)]
    # few marks a text: where every word is quoted, protection decides before any move does
    sparse = MARKS + ("",) * draw(st.integers(0, 24))
    marks = [draw(st.sampled_from(sparse)) for _ in words]
    before = [draw(st.sampled_from(["", "", " "])) for _ in words]
    after = [draw(st.sampled_from(["", "", " ", "  "])) for _ in words]
    commas = [draw(st.sampled_from([",,", ",,", ",,", ",", ""])) for _ in words]
    text = "".join(
        w + b + m + a + c for w, b, m, a, c in zip(words, before, marks, after, commas, strict=True)
    )
    repairs = []
    for n in sorted(set(draw(st.lists(st.integers(0, count - 2), min_size=1, max_size=8)))):
        head = words[n] + before[n] + marks[n]
        spaced = words[n] + (" " if not before[n] else "") + marks[n]
        tail = after[n] + commas[n] + words[n + 1]
        fewer = after[n] + commas[n].replace(",,", ",") + words[n + 1]
        pair = [("spacing", head, spaced), ("punctuation_corruption", tail, fewer)]
        for category, old, new in draw(st.permutations(pair)):
            if draw(st.integers(0, 4)) == 0:
                category = draw(st.sampled_from(CATEGORIES))
            repairs.append(
                Repair(
                    target_id="b",
                    original=old,
                    replacement=new,
                    category=category,
                    justification="generated",
                )
            )
    return text, repairs


def _pair(text: str, spaced: tuple[str, str], fewer: tuple[str, str]) -> tuple[str, list[Repair]]:
    repairs = [
        Repair(
            target_id="b",
            original=old,
            replacement=new,
            category=category,
            justification="generated",
        )
        for category, (old, new) in (("spacing", spaced), ("punctuation_corruption", fewer))
    ]
    return text, repairs


@SETTINGS
@given(quoted_proposals(), st.sampled_from([1, 8]))
# The space turns the closing " into an opening one: the comma after it is quoted only in
# the text the spacing repair leaves (a window that kept the old quotes accepted it).
@example(_pair('xab",,xac', ('xab"', 'xab "'), (",,xac", ",xac")), 1)
def test_quotes_moved_by_neighbouring_repairs_decide_as_the_whole_block(
    proposal: tuple[str, list[Repair]], margin: int
) -> None:
    text, repairs = proposal
    whole = review_repairs(repairs, {"b": text}, locale="en", margin=None)
    windowed = review_repairs(repairs, {"b": text}, locale="en", margin=margin)
    assert _verdicts(windowed) == _verdicts(whole)


def test_a_review_reads_a_bounded_amount_of_whole_blocks() -> None:
    """A block of more than a megabyte with no cut: each repair must read it whole, and the
    review refuses what would take it past its budget instead of reading on."""
    marks = "abcdefgh"
    text = "".join(f"{'x' * 150_000}{m}\u200b{m}" for m in marks)
    repairs = [Repair(target_id="b", original=f"{m}\u200b{m}", replacement=m + m,
                      category="unicode", justification="x") for m in marks]  # fmt: skip
    reviewed = review_repairs(repairs, {"b": text}, locale="en")
    assert reviewed[0].reason == "accepted_unicode"
    refused = [r for r in reviewed if r.reason == "review_budget_exhausted"]
    assert refused
    assert not any(r.accepted for r in refused)
