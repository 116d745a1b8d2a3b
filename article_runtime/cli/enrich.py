"""``article-runtime enrich ARTICLE.json --qid QID --name NAME``: sentiment and tags."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path

from pydantic import ValidationError

from article_runtime.cli.io import note, print_json
from article_runtime.cli.runtime import NO_PROVIDERS, llm_runtime
from article_runtime.enrichment.call import ENRICHMENT, enrich_article
from article_runtime.enrichment.model import EnrichedArticle, EnrichmentFailure, Entity
from article_runtime.errors import InputError
from article_runtime.llm.policy import serves
from article_runtime.model import AssembledArticle


def _article(path: str) -> AssembledArticle:
    """The JSON ``extract`` prints for one article."""
    try:
        return AssembledArticle.model_validate(json.loads(Path(path).read_text(encoding="utf-8")))
    except (ValueError, ValidationError) as exc:
        raise InputError("not_an_assembled_article", f"{path}: {str(exc)[:200]}") from exc


async def _enrich(args: argparse.Namespace) -> EnrichedArticle | EnrichmentFailure:
    article = _article(args.article)
    entity = Entity(qid=args.qid, name=args.name, identity=args.identity)
    async with llm_runtime(args.providers) as llm:
        if not serves(llm, ENRICHMENT):
            note(f"{NO_PROVIDERS}: enrichment cannot run")
        return await enrich_article(article, entity, llm=llm)


def run(args: argparse.Namespace) -> int:
    result = asyncio.run(_enrich(args))
    print_json(result.model_dump(mode="json"))
    return 1 if isinstance(result, EnrichmentFailure) else 0
