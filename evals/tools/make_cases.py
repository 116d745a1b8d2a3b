"""Build the cases from their entries: expected ID sets, hashes and the handwritten answers.

    .venv/bin/python -m evals.tools.make_cases [--prompt PROMPT] [--case NAME]

Run it after adding or changing an entry in ``cases/<prompt>.yaml``, and after a change of
segmentation or prompt input (``make evals`` then reports the cases as stale). Block IDs
depend on segmentation, so the expected kept sets and every handwritten answer naming IDs are
derived here, never typed by hand. It writes ``built/<prompt>/<case>.json`` and replaces the
case's ``answers/<prompt>/<case>--*.json`` whose origin is ``handwritten`` (written to
exercise the suite, never a model's result); recorded answers are left alone.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evals.cases import Case, candidate_set, case_file, entries, input_hash, source_hash
from evals.paths import ANSWERS, HYGIENE, PROMPTS, built_path

if TYPE_CHECKING:
    from article_runtime.model import CandidateSet

Answers = dict[str, dict[str, Any]]  # answer name -> stored answer


@dataclass(frozen=True)
class Fix:
    """A labelled repair: ``label`` is "unambiguous" (must be accepted) or what it really is."""

    page: str
    original: str
    replacement: str
    category: str
    label: str


def fixes(prompt: str = HYGIENE) -> Iterator[Fix]:
    """Every labelled repair of the entries, unambiguous ones first within a case."""
    for name, entry in entries(prompt).items():
        labelled = entry.get("repairs") or {}
        for fix in labelled.get("unambiguous") or []:
            yield Fix(name, fix["original"], fix["replacement"], fix["category"], "unambiguous")
        for kind, fix in (labelled.get("forbidden") or {}).items():
            yield Fix(name, fix["original"], fix["replacement"], fix["category"], kind)


def _checks(prompt: str) -> set[str]:
    from evals.assertions.judge import CHECKS

    return {"schema", *CHECKS[prompt]}


def _stored(case: str, note: str, caught_by: dict[str, str | None], answer: Any) -> dict[str, Any]:
    return {
        "input": case,
        "origin": "handwritten",
        "note": note,
        "expect": "fail" if caught_by else "pass",
        "caught_by": caught_by,
        "answer": answer,
    }


def _edited(good: dict[str, Any], spec: dict[str, Any], kept: Callable[[Any], Any]) -> Any:
    """The good answer with the bad answer's ``edit`` and ``prose_before`` applied."""
    answer = dict(good)
    for field, value in (spec.get("edit") or {}).items():
        answer[field] = kept(value) if field == "kept_block_ids" else value
    prose = spec.get("prose_before")
    return str(prose) + json.dumps(answer) if prose else answer


def _bad_answers(
    case: Case, good: dict[str, Any], kept: Callable[[Any], Any], answers: Answers
) -> None:
    known = _checks(case.prompt)
    for variant, spec in (case.entry.get("bad_answers") or {}).items():
        caught_by = dict(spec["caught_by"])
        if not caught_by or set(caught_by) - known:
            raise SystemExit(f"{case.name}--{variant}: caught_by must name checks among {known}")
        if caught_by.get("schema") is not None:
            raise SystemExit(f"{case.name}--{variant}: the schema check has no reason code (null)")
        answer = _edited(good, spec, kept)
        answers[f"{case.name}--{variant}"] = _stored(case.name, spec["note"], caught_by, answer)


# --- hygiene ---------------------------------------------------------------------------------


def _truth_text(case: Case) -> str:
    truth = case.entry["truth"]
    if truth.get("text"):
        return case_file(case.entry, str(truth["text"])).decode("utf-8")
    from selectolax.lexbor import LexborHTMLParser

    found = LexborHTMLParser(case_file(case.entry, str(case.entry["page"])).decode("utf-8"))
    element = found.css_first(str(truth["element"]))
    if element is None:
        raise SystemExit(f"{case.name}: no {truth['element']!r} element in the page")
    return element.text(separator="\n")


def _ids(group: Iterable[Any], text: str | None) -> list[str] | None:
    """Candidates whose text equals ``text`` (casefolded, whitespace collapsed)."""
    if not text:
        return None
    want = " ".join(text.split()).casefold()
    found = [c.id for c in group if " ".join(c.text.split()).casefold() == want]
    return found or None


def _target(candidates: CandidateSet, fragment: str) -> str:
    meta = candidates.metadata_candidates
    texts = [(b.id, b.text) for b in candidates.blocks]
    texts += [(c.id, c.text) for c in (*meta.title, *meta.subtitle, *meta.author)]
    hits = [i for i, text in texts if text.count(fragment) == 1]
    if len(hits) != 1:
        raise SystemExit(f"fragment {fragment!r} is in {hits}, expected exactly one target")
    return hits[0]


def _repair(candidates: CandidateSet, fix: Fix) -> dict[str, str]:
    return {
        "target_id": _target(candidates, fix.original),
        "original": fix.original,
        "replacement": fix.replacement,
        "category": fix.category,
        "justification": f"{fix.category} defect" if fix.label == "unambiguous" else "cleaner",
    }


def _kept_edit(expected: list[str], every: list[str], planted: list[str]) -> Callable[[Any], Any]:
    """``kept_block_ids`` of a bad answer: a list as written, or derived from the good one."""

    def kept(edit: Any) -> Any:
        if isinstance(edit, list):
            return edit
        if edit == "every_block":
            return list(every)
        if edit == "planted":
            return list(planted)
        if isinstance(edit, dict) and "append" in edit:
            return [*expected, *edit["append"]]
        if isinstance(edit, dict) and "first" in edit:
            return expected[: int(edit["first"])]
        if isinstance(edit, dict) and "swap" in edit:
            i, j = edit["swap"]
            swapped = list(expected)
            swapped[i], swapped[j] = swapped[j], swapped[i]
            return swapped
        raise SystemExit(f"unknown kept_block_ids edit {edit!r}")

    return kept


def build_hygiene(case: Case) -> tuple[dict[str, Any], Answers]:
    from evals.tools.truth import expected_blocks

    candidates = candidate_set(case)
    meta = candidates.metadata_candidates
    truth = case.entry["truth"]
    planted = case.entry.get("planted")
    ignore = [b.id for b in candidates.blocks if planted is not None and b.text == planted]
    if planted is not None and not ignore:
        raise SystemExit(f"{case.name}: no block is the planted paragraph")
    locale = candidates.language or "root"
    truth_blocks = expected_blocks(candidates.blocks, _truth_text(case), locale)
    kept = [i for i in truth_blocks if i not in ignore]
    labelled = [f for f in fixes(HYGIENE) if f.page == case.name]
    titles = _ids(meta.title, truth.get("title")) or [meta.title[0].id]
    authors = _ids(meta.author, truth.get("author"))
    repairs = [_repair(candidates, f) for f in labelled if f.label == "unambiguous"]
    expected = {
        "kept_block_ids": kept,
        "ignore_block_ids": ignore,
        "title_candidate_ids": titles,
        "author_candidate_ids": authors,
        "repairs": repairs,
    }
    good: dict[str, Any] = {
        "title_candidate_id": titles[0],
        "subtitle_candidate_id": None,
        "author_candidate_id": authors[0] if authors else None,
        "kept_block_ids": list(kept),
        "kept_link_ids": [],
        "kept_image_ids": [],
        "repairs": list(repairs),
    }
    answers = {f"{case.name}--good": _stored(case.name, "the expected selection", {}, good)}
    every = [b.id for b in candidates.blocks]
    _bad_answers(case, good, _kept_edit(kept, every, ignore), answers)
    for fix in labelled:
        if fix.label != "unambiguous":
            bad = {**good, "repairs": [*good["repairs"], _repair(candidates, fix)]}
            note = f"a {fix.label} disguised as a repair"
            name = f"{case.name}--{fix.label.replace('_', '-')}"
            answers[name] = _stored(case.name, note, {"repairs": "rejected_repair"}, bad)
    return {"expected": expected}, answers


# --- enrichment ------------------------------------------------------------------------------


def build_enrichment(case: Case) -> tuple[dict[str, Any], Answers]:
    good = case.entry["good_answer"]
    note = "grounded tags, sentiment towards the entity"
    answers = {f"{case.name}--good": _stored(case.name, note, {}, good)}

    def literal(edit: Any) -> Any:
        return edit

    _bad_answers(case, good, literal, answers)
    return {"expected": dict(case.entry["expected"])}, answers


# --- writing ---------------------------------------------------------------------------------


def build(prompt: str, name: str) -> tuple[dict[str, Any], Answers]:
    """The built data and the handwritten answers of one entry (nothing written)."""
    case = Case(prompt, name, entries(prompt)[name], {})
    built, answers = (build_hygiene if prompt == HYGIENE else build_enrichment)(case)
    hashes = {"source_sha256": source_hash(case), "input_sha256": input_hash(case)}
    return {**hashes, **built}, answers


def _write(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def write_case(prompt: str, name: str) -> int:
    built, answers = build(prompt, name)
    for old in (ANSWERS / prompt).glob(f"{name}--*.json"):
        stored = json.loads(old.read_text(encoding="utf-8"))
        if stored.get("origin") == "handwritten" and stored.get("input") == name:
            old.unlink()
    _write(built_path(prompt, name), built)
    for answer, stored in answers.items():
        _write(ANSWERS / prompt / f"{answer}.json", stored)
    return len(answers)


def _drop_removed(prompt: str) -> None:
    """Built data and handwritten answers of entries that are gone."""
    live = set(entries(prompt))
    for built in built_path(prompt, "-").parent.glob("*.json"):
        if built.stem not in live:
            built.unlink()
    for path in (ANSWERS / prompt).glob("*.json"):
        stored = json.loads(path.read_text(encoding="utf-8"))
        if stored.get("origin") == "handwritten" and stored.get("input") not in live:
            path.unlink()


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prompt", action="append", choices=PROMPTS, help="only this suite")
    parser.add_argument("--case", action="append", default=[], help="only this case")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    for prompt in args.prompt or PROMPTS:
        names = [n for n in entries(prompt) if not args.case or n in args.case]
        _drop_removed(prompt)
        for name in names:
            count = write_case(prompt, name)
            print(f"{prompt}/{name}: built, {count} handwritten answer(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
