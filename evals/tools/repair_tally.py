"""Count the decisions the repair review gives, to compare two versions of it side by side.

    .venv/bin/python -m evals.tools.repair_tally                     # this checkout's review
    .venv/bin/python -m evals.tools.repair_tally --runtime ../other   # another checkout's

Stored answers: every repair of every stored hygiene answer, reviewed as the suite reviews it,
split into repairs the answer files label good (their defect is labelled unambiguous) and the
rest (each bad answer adds one forbidden repair). Sample probes, hostile only: on the blocks of
every page in ``samples/``, each word that has a common word one edit away in wordfreq's top
list is proposed as an ``obvious_typo`` to it (``emitir`` -> ``omitir``), each pair of words
whose join is a common word as a ``spacing`` join (``now here`` -> ``nowhere``), and each sign
or unit glued to a number is dropped as ``punctuation_corruption`` (``-15`` -> ``15``).
"""

from __future__ import annotations

import argparse
import gzip
import inspect
import itertools
import json
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from evals.paths import ANSWERS, HYGIENE, REPO

SAMPLES = REPO / "samples"
TOP = 20000
PER_PAGE = 60  # probes of each kind per page, first in block order


def _page(path: Path) -> bytes:
    raw = path.read_bytes()
    return gzip.decompress(raw) if path.suffix == ".gz" else raw


Probe = tuple[str, str | None, dict[str, str], dict[str, str], dict[str, str]]


def _roles(candidates: Any) -> dict[str, str]:
    """Code blocks, author and title lines, as the harness passes them (a review that takes no
    roles, an older checkout's, is called without them)."""
    meta = candidates.metadata_candidates
    roles = {b.id: "code" for b in candidates.blocks if b.type == "code"}
    roles |= {c.id: "author" for c in meta.author}
    return roles | {c.id: "title" for c in meta.title}


def _stored() -> Iterator[Probe]:
    """(kind, language, targets, repair) for each repair of each stored hygiene answer."""
    from evals.cases import candidate_set, load_case

    for path in sorted((ANSWERS / HYGIENE).glob("*.json")):
        stored = json.loads(path.read_text(encoding="utf-8"))
        answer = stored["answer"]
        if not isinstance(answer, dict) or not answer.get("repairs"):
            continue
        case = load_case(HYGIENE, stored["input"])
        labelled = {
            (r["target_id"], r["original"], r["replacement"])
            for r in case.expected.get("repairs") or []
        }
        candidates = candidate_set(case)
        meta = candidates.metadata_candidates
        targets = {b.id: b.text for b in candidates.blocks}
        targets |= {c.id: c.text for c in (*meta.title, *meta.subtitle, *meta.author)}
        for repair in answer["repairs"]:
            key = (repair["target_id"], repair["original"], repair["replacement"])
            kind = "stored: labelled good" if key in labelled else "stored: forbidden"
            yield kind, candidates.language, targets, _roles(candidates), repair


def _probe(target_id: str, original: str, replacement: str, category: str) -> dict[str, str]:
    return {
        "target_id": target_id,
        "original": original,
        "replacement": replacement,
        "category": category,
        "justification": "probe",
    }


def _neighbour(word: str, common: set[str]) -> str | None:
    letters = sorted(set(word))
    options = {word[:i] + word[i + 1 :] for i in range(len(word))}
    options |= {word[:i] + ch + word[i + 1 :] for i in range(len(word)) for ch in letters}
    options |= {word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(len(word) - 1)}
    options.discard(word)
    found = sorted(options & common)
    return found[0] if found else None


def _sample_probes() -> Iterator[Probe]:
    import wordfreq

    from article_runtime.candidates import build_candidates
    from article_runtime.text import words

    for path in sorted(SAMPLES.glob("*.htm*")):
        candidates = build_candidates(_page(path))
        language = candidates.language or "und"
        try:
            common = {w for w in wordfreq.top_n_list(language, TOP) if w.isalpha()}
        except LookupError:
            common = set()
        targets = {b.id: b.text for b in candidates.blocks}
        roles = _roles(candidates)
        swaps: list[dict[str, str]] = []
        joins: list[dict[str, str]] = []
        signs: list[dict[str, str]] = []
        for block in candidates.blocks:
            text = block.text
            found = words(text, language)
            for word in found:
                if len(word) >= 3 and word.islower() and text.count(word) == 1:
                    other = _neighbour(word, common)
                    if other is not None:
                        swaps.append(_probe(block.id, word, other, "obvious_typo"))
            for head, tail in itertools.pairwise(found):
                pair = f"{head} {tail}"
                if (head + tail).lower() in common and text.count(pair) == 1:
                    joins.append(_probe(block.id, pair, head + tail, "spacing"))
            for i, ch in enumerate(text[:-1]):
                glued = text[i : i + 2]
                if ch in "-+$€£%" and text[i + 1].isdigit() and text.count(glued) == 1:
                    signs.append(_probe(block.id, glued, text[i + 1], "punctuation_corruption"))
                if ch.isdigit() and text[i + 1] == "%" and text.count(glued) == 1:
                    signs.append(_probe(block.id, glued, ch, "punctuation_corruption"))
        for kind, probes in (("swaps", swaps), ("joins", joins), ("signs", signs)):
            for probe in probes[:PER_PAGE]:
                yield f"samples: real-word {kind}", candidates.language, targets, roles, probe
        if path.name == "lanacion.com.ar-jugada.html":
            block = next(b for b in candidates.blocks if "emitir" in b.text)
            probe = _probe(block.id, "emitir", "omitir", "obvious_typo")
            yield "issue: emitir -> omitir", candidates.language, targets, roles, probe


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runtime", help="import article_runtime from this checkout instead")
    args = parser.parse_args()
    if args.runtime:
        sys.path.insert(0, str(Path(args.runtime).resolve()))
    from article_runtime.harness.repairs import review_repairs
    from article_runtime.model.proposal import Repair

    counts: dict[str, Counter[str]] = {}
    reasons: Counter[str] = Counter()
    takes_roles = "roles" in inspect.signature(review_repairs).parameters
    for kind, language, targets, roles, repair in [*_stored(), *_sample_probes()]:
        proposed = Repair.model_validate(repair)
        options: dict[str, Any] = {"roles": roles} if takes_roles else {}
        [reviewed] = review_repairs([proposed], targets, locale=language, **options)
        row = counts.setdefault(kind, Counter())
        row["accepted" if reviewed.accepted else "rejected"] += 1
        reasons[reviewed.reason] += 1
    print(f"review from {sys.modules['article_runtime'].__file__}")
    print(f"{'source':34} {'proposed':>8} {'accepted':>8} {'rejected':>8}")
    for kind, row in counts.items():
        total = row["accepted"] + row["rejected"]
        print(f"{kind:34} {total:>8} {row['accepted']:>8} {row['rejected']:>8}")
    print("reasons:", ", ".join(f"{k} {v}" for k, v in sorted(reasons.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
