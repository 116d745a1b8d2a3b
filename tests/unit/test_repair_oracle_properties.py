"""Property tests of the oracles (issue 35): no accepted repair of any category turns a word the
dictionary knows into another, and no accepted replacement writes a hidden character or a
letter of another script; tone, names and code layout stay.

The classes come from independent definitions: dictionary words are the stems of the Hunspell
``.dic`` files themselves, edits are plain deletions, insertions, substitutions and swaps,
hidden characters are Unicode general categories and ICU property sets, scripts are ICU's
Script property. None is borrowed from the runtime's own predicates.
"""

from __future__ import annotations

import functools
import unicodedata
from typing import cast

import icu
import wordfreq
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from article_runtime.harness.repair_edit import TargetRole
from article_runtime.harness.repairs import review_repairs
from article_runtime.model.proposal import REPAIR_CATEGORIES, Repair, RepairCategory
from article_runtime.text.hunspell import Dictionary
from article_runtime.text.spelling import DICTIONARY_DIRS, speller_for

LANGUAGES = ("en", "pt", "es", "fr", "de")
ALL_CATEGORIES = cast(tuple[RepairCategory, ...], REPAIR_CATEGORIES)
SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)

languages = st.sampled_from(LANGUAGES)
categories = st.sampled_from(ALL_CATEGORIES)


def _dictionaries(language: str) -> tuple[Dictionary, ...]:
    speller = speller_for(language)
    assert speller is not None, f"no dictionary for {language}: see debian-packages.txt"
    return speller.dictionaries


def spelled(language: str, word: str) -> bool:
    """Hunspell, asked directly: some dictionary of the language accepts ``word``."""
    speller = speller_for(language)
    assert speller is not None
    return any(d.spell(word) for d in speller.dictionaries)


def known(language: str, word: str) -> bool:
    """Hunspell, asked directly: a dictionary of the language accepts ``word`` or ``Word``."""
    return spelled(language, word) or spelled(language, word[:1].upper() + word[1:])


@functools.cache
def stems(language: str) -> tuple[str, ...]:
    """Lowercase alphabetic stems of the language's ``.dic`` files (rare words included) that
    the dictionary accepts as words: a stem flagged NEEDAFFIX or ONLYINCOMPOUND is no word
    alone (de_DE's ``abfahrts/hke`` only begins compounds: Abfahrtszeit)."""
    speller = speller_for(language)
    assert speller is not None
    found: set[str] = set()
    for dictionary in speller.dictionaries:
        path = DICTIONARY_DIRS[0] / f"{dictionary.name}.dic"
        lines = path.read_text(encoding="utf-8", errors="ignore").splitlines()[1:]
        for line in lines:
            stem = line.split("/", 1)[0].strip()
            if len(stem) >= 4 and stem.isalpha() and stem == stem.lower():
                found.add(stem)
    return tuple(sorted(stem for stem in found if known(language, stem)))


def test_the_stems_are_words_alone() -> None:
    """The generator's class is what the dictionary accepts, not every line of its file."""
    assert "abfahrts" not in stems("de")
    assert all(len(stems(language)) > 10000 for language in LANGUAGES)


@functools.cache
def common_words(language: str) -> tuple[str, ...]:
    return tuple(
        w
        for w in wordfreq.top_n_list(language, 3000)
        if len(w) >= 4 and w.isalpha() and w == w.lower()
    )


def edits(word: str, letters: str) -> st.SearchStrategy[str]:
    """One plain edit of ``word``: delete, insert, substitute or swap neighbours."""
    n = len(word)
    return st.one_of(
        st.integers(0, n - 1).map(lambda i: word[:i] + word[i + 1 :]),
        st.tuples(st.integers(0, n), st.sampled_from(letters)).map(
            lambda p: word[: p[0]] + p[1] + word[p[0] :]
        ),
        st.tuples(st.integers(0, n - 1), st.sampled_from(letters)).map(
            lambda p: word[: p[0]] + p[1] + word[p[0] + 1 :]
        ),
        st.integers(0, n - 2).map(lambda i: word[:i] + word[i + 1] + word[i] + word[i + 2 :]),
    )


def repair(original: str, replacement: str, category: RepairCategory) -> Repair:
    return Repair(
        target_id="b",
        original=original,
        replacement=replacement,
        category=category,
        justification="generated",
    )


def review_one(text: str, fix: Repair, language: str, role: TargetRole = "text") -> str:
    [reviewed] = review_repairs([fix], {"b": text}, locale=language, roles={"b": role})
    return reviewed.reason


def sentence(language: str, middle: str, data: st.DataObject) -> str:
    words = common_words(language)
    before = data.draw(st.sampled_from(words), label="before")
    after = data.draw(st.sampled_from(words), label="after")
    return f"{before} {middle} {after}."


# --- no word the dictionary knows becomes another ------------------------------------------


@SETTINGS
@given(languages, categories, st.data())
def test_no_category_turns_a_dictionary_word_into_another(
    language: str, category: RepairCategory, data: st.DataObject
) -> None:
    """moot -> most, skein -> skin: a rare real word is a word all the same."""
    word = data.draw(st.sampled_from(stems(language)), label="word")
    other = data.draw(edits(word, "".join(sorted(set(word + "aeiourstnl")))), label="other")
    assume(other != word and other.isalpha() and spelled(language, other))
    text = sentence(language, word, data)
    assume(text.count(word) == 1)
    reason = review_one(text, repair(word, other, category), language)
    assert not reason.startswith("accepted_"), (word, other, reason)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(languages, st.data())
def test_a_typo_the_dictionary_corrects_first_is_accepted(
    language: str, data: st.DataObject
) -> None:
    """The other side: a one-edit typo of a common word, which every dictionary rejects and one
    corrects first into that word, is fixed (definately, recieve: common, and wrong)."""
    word = data.draw(st.sampled_from([w for w in common_words(language) if len(w) >= 6]))
    assume(spelled(language, word))
    typo = data.draw(edits(word, word), label="typo")
    assume(typo != word and not spelled(language, typo) and not spelled(language, typo.upper()))
    assume(any(d.suggest(typo)[:1] == (word,) for d in _dictionaries(language)))
    text = sentence(language, typo, data)
    assume(text.count(typo) == 1)
    assert review_one(text, repair(typo, word, "obvious_typo"), language) == (
        "accepted_obvious_typo"
    )


# --- nothing hidden, no foreign letter --------------------------------------------------------

_PROPERTY_SET = icu.UnicodeSet(
    "[[:Default_Ignorable_Code_Point:][:Bidi_Control:][:Variation_Selector:]]"
)
hidden = st.one_of(
    st.characters(categories=["Cc", "Cf", "Co", "Cn"]),
    st.sampled_from([str(ch) for ch in _PROPERTY_SET]),
)


def _foreign_letter(ch: str) -> bool:
    script = icu.Script.getScript(ch).getScriptCode()
    return script not in (icu.UScriptCode.LATIN, icu.UScriptCode.COMMON, icu.UScriptCode.INHERITED)


# Cased letters (Greek, Cyrillic, Armenian...) join a Latin word in one ICU word, so the edit
# writes one word of two scripts; uncased ones (Han, Thai) stand apart as words of their own.
foreign = st.characters(categories=["Lu", "Ll"]).filter(_foreign_letter)


@SETTINGS
@given(languages, categories, hidden, st.data())
def test_no_replacement_writes_a_hidden_character(
    language: str, category: RepairCategory, ch: str, data: st.DataObject
) -> None:
    """Into a word, a real typo fix, a space or a mark: never accepted, whatever the category."""
    word = data.draw(st.sampled_from(common_words(language)), label="word")
    spot = data.draw(st.integers(0, len(word)), label="spot")
    text = sentence(language, f"{word},, {word[::-1]}", data)
    assume(text.count(word) == 1)
    original = data.draw(st.sampled_from([word, f"{word},,", f"{word},, "]), label="original")
    fixed = {word: word, f"{word},,": f"{word},", f"{word},, ": f"{word}, "}[original]
    replacement = fixed[:spot] + ch + fixed[spot:]
    reason = review_one(text, repair(original, replacement, category), language)
    # judged as written, before any category: the section 2 guard itself refuses it
    assert reason == "hidden_character_added", (original, replacement, reason)


@SETTINGS
@given(languages, categories, foreign, st.data())
def test_no_replacement_writes_a_letter_of_another_script(
    language: str, category: RepairCategory, letter: str, data: st.DataObject
) -> None:
    word = data.draw(st.sampled_from(common_words(language)), label="word")
    spot = data.draw(st.integers(0, len(word) - 1), label="spot")
    text = sentence(language, word, data)
    assume(text.count(word) == 1)
    swapped = word[:spot] + letter + word[spot + 1 :]
    inserted = word[:spot] + letter + word[spot:]
    for replacement in (swapped, inserted):
        reason = review_one(text, repair(word, replacement, category), language)
        assert reason == "mixed_script_added", (word, replacement, reason)


# --- tone, names, code ------------------------------------------------------------------------

# ICU's property set, less the few code points newer than Python's own Unicode data (there
# unassigned, so no mark at all to the punctuation rules).
terminals = st.sampled_from(
    [
        str(ch)
        for ch in icu.UnicodeSet("[:Sentence_Terminal:]")
        if unicodedata.category(str(ch)).startswith("P")
    ]
)


# A word and two neighbours of one language: plain values, so an @example can name them.
contexts = languages.flatmap(
    lambda language: st.tuples(
        st.just(language), *(st.sampled_from(common_words(language)) for _ in range(3))
    )
)


def _joins_a_latin_word(mark: str) -> bool:
    """ICU's word rules, asked directly, make ``tempo`` and ``mark`` one word."""
    words = icu.BreakIterator.createWordInstance(icu.Locale.getRoot())
    words.setText(f"tempo{mark} casa")
    return bool(words.following(0) == len(f"tempo{mark}"))


def test_the_terminals_include_marks_of_other_scripts_joined_to_a_word() -> None:
    """The class the tone property must reach: a terminal with a script of its own, which ICU
    joins to the Latin word before it (``tempo᪨``), so dropping a ``!`` beside it writes one
    word of a Latin letters and a Tai Tham mark."""
    pool = [str(ch) for ch in icu.UnicodeSet("[:Sentence_Terminal:]")]
    scripted = [m for m in pool if not _neutral(m) and unicodedata.category(m).startswith("P")]
    assert any(_joins_a_latin_word(m) for m in scripted), scripted


def _neutral(ch: str) -> bool:
    script = icu.Script.getScript(ch).getScriptCode()
    return bool(script in (icu.UScriptCode.COMMON, icu.UScriptCode.INHERITED))


@SETTINGS
# U+1AA8 TAI THAM SIGN KAAN is punctuation: no letter of another script (section 2)
@example(("pt", "tempo", "casa", "mundo"), ["!", "\u1aa8"], 0)
@example(("en", "time", "home", "world"), ["\u1aa8", "\u1aa9"], 1)
@given(contexts, st.lists(terminals, min_size=2, max_size=3), st.integers(0, 2))
def test_sentence_terminals_are_tone_and_stay(
    context: tuple[str, str, str, str], marks: list[str], drop: int
) -> None:
    """``!!``, ``?!``, ``..``, ``。。``, ``!᪨``: removing any of them is refused."""
    language, word, before, after = context
    run = "".join(marks)
    assume(drop < len(run))
    text = f"{word}{run} {before} e {after}."
    reason = review_one(
        text,
        repair(f"{word}{run}", f"{word}{run[:drop]}{run[drop + 1 :]}", "punctuation_corruption"),
        language,
    )
    assert reason == "sentence_terminal_changed", (run, reason)


@SETTINGS
@given(languages, st.data())
def test_a_capitalized_word_inside_a_sentence_is_never_split_or_joined(
    language: str, data: st.DataObject
) -> None:
    word = data.draw(st.sampled_from([w for w in common_words(language) if len(w) >= 5]))
    name = word[0].upper() + word[1:]
    cut = data.draw(st.integers(1, len(name) - 1), label="cut")
    split = f"{name[:cut]} {name[cut:]}"
    for before, after in ((name, split), (split, name)):
        text = sentence(language, before, data)
        assume(text.count(before) == 1)
        reason = review_one(text, repair(before, after, "spacing"), language)
        assert not reason.startswith("accepted_"), (before, after, reason)


whitespace_edits = st.sampled_from(["", " ", "  ", "\t", "\n", "        "])


@SETTINGS
@given(languages, categories, whitespace_edits, st.data())
def test_a_code_block_keeps_its_layout(
    language: str, category: RepairCategory, new_gap: str, data: st.DataObject
) -> None:
    words = data.draw(st.lists(st.sampled_from(common_words(language)), min_size=3, max_size=5))
    indent = data.draw(st.sampled_from(["    ", "\t", "  "]), label="indent")
    code = f"{words[0]}({words[1]}):\n{indent}return {words[2]}  # {' '.join(words[3:])}"
    gaps = [i for i, ch in enumerate(code) if ch.isspace()]
    spot = data.draw(st.sampled_from(gaps), label="spot")
    end = spot
    while end < len(code) and code[end].isspace():
        end += 1
    start = spot
    while start > 0 and code[start - 1].isspace():
        start -= 1
    assume(code[start:end] != new_gap)
    lo, hi = max(0, start - 3), min(len(code), end + 3)
    original = code[lo:hi]
    assume(code.count(original) == 1)
    replacement = code[lo:start] + new_gap + code[end:hi]
    reason = review_one(code, repair(original, replacement, category), language, role="code")
    assert reason in ("verbatim_block", "verbatim_whitespace"), (original, replacement, reason)
