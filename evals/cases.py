"""Cases: what people wrote (``cases/<prompt>.yaml``), what was derived from it
(``built/<prompt>/<case>.json``) and the runtime objects made from both.

An entry names a page (or an article and an entity) and what a right answer holds in words:
truth text, title, author, labelled repairs, sentiment. Block IDs depend on the runtime's
segmentation, so ``evals.tools.make_cases`` derives the expected ID sets from the entry and
stores them with two hashes: of the entry and its files, and of the input the runtime builds
from them. Either hash moving makes the case stale until it is built again.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from evals.paths import CASES, HYGIENE, built_path, entries_path

if TYPE_CHECKING:
    from article_runtime.enrichment.model import EnrichmentInput
    from article_runtime.model import AssembledArticle, CandidateSet


@dataclass(frozen=True, slots=True)
class Case:
    """One input of a suite: a page (hygiene) or an article and an entity (enrichment)."""

    prompt: str
    name: str
    entry: dict[str, Any]  # as written in cases/<prompt>.yaml
    built: dict[str, Any]  # derived by evals.tools.make_cases; empty before the first build

    @property
    def category(self) -> str:
        return str(self.entry["category"])

    @property
    def expected(self) -> dict[str, Any]:
        value = self.built.get("expected", {})
        return value if isinstance(value, dict) else {}


@cache
def entries(prompt: str) -> dict[str, dict[str, Any]]:
    """The entries of ``cases/<prompt>.yaml``, by case name."""
    import yaml

    data = yaml.safe_load(entries_path(prompt).read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise ValueError(f"{entries_path(prompt)}: expected a mapping of case name to entry")
    return {str(name): entry for name, entry in data.items()}


def case_names(prompt: str) -> list[str]:
    return sorted(entries(prompt))


@cache
def load_case(prompt: str, name: str) -> Case:
    path = built_path(prompt, name)
    built = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    return Case(prompt, name, entries(prompt)[name], built)


def case_file(entry: dict[str, Any], relative: str) -> bytes:
    """A file an entry names (page, truth text), as stored; ``.gz`` files are decompressed."""
    path = CASES / relative
    raw = path.read_bytes()
    return gzip.decompress(raw) if path.suffix == ".gz" else raw


def page_bytes(case: Case) -> bytes:
    return case_file(case.entry, str(case.entry["page"]))


_CANDIDATES: dict[tuple[str, str], CandidateSet] = {}


def candidate_set(case: Case) -> CandidateSet:
    """What the runtime builds from this page: ``build_candidates(html, url=...)``.

    Kept for the life of the process (about a second each to build); the warm runner builds
    every set once and serves all of a run's checks from memory.
    """
    from article_runtime.candidates import build_candidates

    key = (case.prompt, case.name)
    if key not in _CANDIDATES:
        _CANDIDATES[key] = build_candidates(page_bytes(case), url=case.entry.get("url"))
    return _CANDIDATES[key]


def assembled_article(case: Case) -> AssembledArticle:
    """The entry's handwritten article as the hygiene harness would hand it over."""
    from article_runtime.hashing import sha256_hex
    from article_runtime.model import AssembledArticle, HarnessReport, Hashes, RepairLog

    article = case.entry["article"]
    markdown = str(article["markdown"])
    return AssembledArticle(
        source=case.name,
        title=str(article["title"]),
        subtitle=article.get("subtitle"),
        author=article.get("author"),
        published_at=None,
        source_url=None,
        language=article.get("language"),
        markdown=markdown,
        path="deterministic",
        repairs=RepairLog(),
        hashes=Hashes(markdown=sha256_hex(markdown), source_html="", candidate_set=""),
        harness=HarnessReport(valid=True, steps=[]),
    )


def enrichment_input(case: Case) -> EnrichmentInput:
    """What the runtime builds: ``build_enrichment_input(article, entity)``."""
    from article_runtime.enrichment.blocks import build_enrichment_input
    from article_runtime.enrichment.model import Entity

    return build_enrichment_input(
        assembled_article(case), Entity.model_validate(case.entry["entity"])
    )


def input_hash(case: Case) -> str:
    """The hash of what the call receives: a changed segmentation makes a built case stale."""
    from article_runtime.hashing import model_hash

    if case.prompt == HYGIENE:
        return model_hash(candidate_set(case))
    return model_hash(enrichment_input(case))


def source_hash(case: Case) -> str:
    """The hash of the entry and of every file it names (page, truth text)."""
    digest = hashlib.sha256(json.dumps(case.entry, sort_keys=True, ensure_ascii=False).encode())
    for relative in (case.entry.get("page"), (case.entry.get("truth") or {}).get("text")):
        if relative:
            digest.update(case_file(case.entry, str(relative)))
    return digest.hexdigest()


_STALE: dict[tuple[str, str], str | None] = {}


def stale_reason(case: Case) -> str | None:
    """None when the built data still matches the entry and what the runtime builds today."""
    key = (case.prompt, case.name)
    if key not in _STALE:
        _STALE[key] = _stale_reason(case)
    return _STALE[key]


def _stale_reason(case: Case) -> str | None:
    if not case.built:
        return "new_case: not built yet"
    if case.built.get("source_sha256") != source_hash(case):
        return "changed_case: the entry or a file it names changed since the build"
    stored, current = str(case.built.get("input_sha256")), input_hash(case)
    if stored != current:
        return f"stale_case: the runtime builds another input ({stored[:12]} != {current[:12]})"
    return None
