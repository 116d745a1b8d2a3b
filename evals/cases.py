"""Stored cases and the runtime objects built from them (candidate sets, enrichment inputs).

Building a candidate set takes about a second and every Promptfoo Python call is a new
process, so when ``EVALS_CACHE_DIR`` is set (the runner sets a fresh one per run) the set is
kept there as JSON, keyed by the page's hash. Nothing is cached across runs.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evals.paths import CASES, REPO

if TYPE_CHECKING:
    from article_runtime.enrichment.model import EnrichmentInput
    from article_runtime.model import AssembledArticle, CandidateSet

CACHE_ENV = "EVALS_CACHE_DIR"


@dataclass(frozen=True, slots=True)
class Case:
    """One input of a suite: a page (hygiene) or an article and an entity (enrichment)."""

    prompt: str
    name: str
    category: str
    data: dict[str, Any]

    @property
    def expected(self) -> dict[str, Any]:
        value = self.data.get("expected", {})
        return value if isinstance(value, dict) else {}


def case_path(prompt: str, name: str) -> Path:
    return CASES / prompt / f"{name}.json"


@cache
def load_case(prompt: str, name: str) -> Case:
    data = json.loads(case_path(prompt, name).read_text(encoding="utf-8"))
    return Case(prompt, name, str(data["category"]), data)


def case_names(prompt: str) -> list[str]:
    return sorted(p.stem for p in (CASES / prompt).glob("*.json"))


def page_bytes(case: Case) -> bytes:
    """The page's HTML exactly as stored; ``.gz`` files are decompressed."""
    path = (REPO / str(case.data["page"])).resolve()
    raw = path.read_bytes()
    return gzip.decompress(raw) if path.suffix == ".gz" else raw


def _cached(name: str, key: str) -> Path | None:
    root = os.environ.get(CACHE_ENV)
    return Path(root) / f"{name}.{key}.json" if root else None


def candidate_set(case: Case) -> CandidateSet:
    """What the runtime builds from this page: ``build_candidates(html, url=...)``."""
    from article_runtime.candidates import build_candidates
    from article_runtime.model import CandidateSet

    raw = page_bytes(case)
    url = case.data.get("url")
    key = hashlib.sha256(raw + str(url).encode()).hexdigest()[:24]
    cached = _cached(case.name, key)
    if cached is not None and cached.is_file():
        return CandidateSet.model_validate_json(cached.read_bytes())
    candidates = build_candidates(raw, url=url)
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        partial = cached.with_suffix(f".{os.getpid()}.part")
        partial.write_text(candidates.model_dump_json(), encoding="utf-8")
        partial.replace(cached)  # atomic: concurrent assertions never read half a file
    return candidates


def assembled_article(case: Case) -> AssembledArticle:
    """A handwritten article as the hygiene harness would hand it over."""
    from article_runtime.hashing import sha256_hex
    from article_runtime.model import AssembledArticle, HarnessReport, Hashes, RepairLog

    article = case.data["article"]
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
        assembled_article(case), Entity.model_validate(case.data["entity"])
    )


def input_hash(case: Case) -> str:
    """The hash of what the call receives: a changed segmentation makes a stored case stale."""
    from article_runtime.hashing import model_hash

    if case.prompt == "article_content_hygiene":
        return model_hash(candidate_set(case))
    return model_hash(enrichment_input(case))


def stale_reason(case: Case) -> str | None:
    """None when the stored input hash still matches what the runtime builds today."""
    stored = case.data.get("input_sha256")
    current = input_hash(case)
    if stored == current:
        return None
    return f"stale_case: stored input hash {str(stored)[:12]} != current {current[:12]}"
