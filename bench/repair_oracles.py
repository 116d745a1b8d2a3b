"""CPU per repair review with the oracles: dictionary load, typo fixes accepted and refused,
spacing and punctuation, per language (issue 35).

    .venv/bin/python -m bench.repair_oracles [--languages en,pt,es,fr,de] [--words 20]

Each typo is a common word (wordfreq) with two neighbouring letters swapped, kept when every
dictionary of the language rejects it. A review is one ``review_repairs`` call on a one-sentence
block with one repair, timed cold: the suggestion cache is emptied before each, so the figure
is what a typo costs the first time it is seen. "a rival" proposes a later suggestion of the
typo instead of its fix (refused unless it is the most frequent of the closest: every variant
that accepts it is asked, the costliest refusal).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter
from collections.abc import Sequence

import wordfreq

from article_runtime.harness.repairs import review_repairs
from article_runtime.model.proposal import Repair, RepairCategory
from article_runtime.text import spelling
from article_runtime.text.hunspell import Dictionary
from article_runtime.text.spelling import speller_for

DEFAULT_LANGUAGES = "en,pt,es,fr,de,it,nl,ru,pl,sv,da,ro,cs,sk,sl,hr,bg,uk,el,ca,hu,tr"


def _repair(original: str, replacement: str, category: RepairCategory) -> Repair:
    return Repair(
        target_id="b",
        original=original,
        replacement=replacement,
        category=category,
        justification="bench",
    )


def _review_ms(text: str, repair: Repair, language: str) -> tuple[float, str]:
    """CPU milliseconds of one cold review, and its verdict."""
    spelling._fixes.cache_clear()
    start = time.process_time()
    [reviewed] = review_repairs([repair], {"b": text}, locale=language)
    return (time.process_time() - start) * 1000, reviewed.reason


def _rival(dictionaries: Sequence[Dictionary], typo: str, word: str) -> str | None:
    """A later one-word suggestion of the typo, not its fix: a plausible word the model might
    propose, which every variant accepting it must be asked about (the costliest refusal)."""
    for dictionary in dictionaries:
        for suggestion in dictionary.suggest(typo)[1:]:
            if suggestion != word and suggestion.isalpha():
                return suggestion
    return None


def _row(name: str, times: list[float]) -> str:
    if not times:
        return f"  {name:26} -"
    times = sorted(times)
    p90 = times[min(len(times) - 1, int(0.9 * len(times)))]
    return (
        f"  {name:26} n={len(times):3}  median {statistics.median(times):6.1f}  "
        f"p90 {p90:6.1f}  max {times[-1]:6.1f} ms"
    )


def bench(language: str, count: int) -> list[str]:
    start = time.perf_counter()
    speller = speller_for(language)
    load = (time.perf_counter() - start) * 1000
    if speller is None:
        return [f"{language}: no dictionary (language_not_covered)"]
    names = ", ".join(d.name for d in speller.dictionaries)
    lines = [f"{language} ({names}): dictionaries loaded in {load:.0f} ms"]
    words = [
        w
        for w in wordfreq.top_n_list(language, 5000)[300:]
        if len(w) >= 6 and w.isalpha() and w == w.lower() and speller.is_word(w)
    ]
    accepted: list[float] = []
    refused: list[float] = []
    spacing: list[float] = []
    punctuation: list[float] = []
    verdicts: Counter[str] = Counter()
    around = f"{words[0]} {{}} {words[1]}."
    for word in words[: count * 3]:
        if len(accepted) >= count:
            break
        typo = word[:2] + word[3] + word[2] + word[4:]
        if speller.knows(typo):
            continue
        took, reason = _review_ms(
            around.format(typo), _repair(typo, word, "obvious_typo"), language
        )
        accepted.append(took)
        verdicts[reason] += 1
        rival = _rival(speller.dictionaries, typo, word)
        if rival is not None:
            fix = _repair(typo, rival, "obvious_typo")
            took, reason = _review_ms(around.format(typo), fix, language)
            refused.append(took)
            verdicts[f"rival: {reason}"] += 1
        cut = len(word) // 2
        join = _repair(f"{word[:cut]} {word[cut:]}", word, "spacing")
        spacing.append(_review_ms(around.format(join.original), join, language)[0])
        doubled = _repair(f"{word},,", f"{word},", "punctuation_corruption")
        punctuation.append(_review_ms(around.format(doubled.original), doubled, language)[0])
    lines += [
        _row("typo, the dictionary's fix", accepted),
        _row("typo, refused (a rival)", refused),
        _row("spacing join", spacing),
        _row("punctuation ,, -> ,", punctuation),
        "  typo verdicts: " + ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())),
    ]
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--languages", default=DEFAULT_LANGUAGES)
    parser.add_argument("--words", type=int, default=20, help="typos per language")
    args = parser.parse_args()
    print("CPU per review of one repair, cold suggestion cache (process time)")
    for language in args.languages.split(","):
        for line in bench(language.strip(), args.words):
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
