"""``article-runtime extract PATH...``: pages in, assembled articles out, one per page."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from tqdm import tqdm

from article_runtime.candidates import build_candidates
from article_runtime.candidates.urls import normalize_url
from article_runtime.cli.io import (
    as_markdown,
    error_line,
    error_record,
    iter_inputs,
    note,
    print_json,
)
from article_runtime.cli.runtime import NO_PROVIDERS, llm_runtime
from article_runtime.extract import extract_article
from article_runtime.hygiene import HYGIENE, hygiene_article
from article_runtime.llm.policy import LLMRuntime, serves
from article_runtime.model import AssembledArticle


async def _one(
    path: Path, args: argparse.Namespace, proposal: bytes | None, llm: LLMRuntime | None
) -> AssembledArticle:
    raw = path.read_bytes()
    if proposal is not None:  # a recorded answer: judged, never sent anywhere
        return extract_article(raw, source=str(path), url=args.url, proposal=proposal)
    candidates = build_candidates(raw, url=args.url)
    return await hygiene_article(candidates, raw, source=str(path), llm=llm)


async def _extract_all(files: list[Path], args: argparse.Namespace, fmt: str) -> int:
    proposal = Path(args.proposal).read_bytes() if args.proposal else None
    failures = 0
    async with llm_runtime(args.providers) as llm:
        if proposal is None and not serves(llm, HYGIENE):
            note(f"{NO_PROVIDERS}: hygiene takes the deterministic path")
        for path in tqdm(files, file=sys.stderr, unit="article", disable=len(files) < 2):
            try:
                article = await _one(path, args, proposal, llm)
            except Exception as exc:  # one bad input never stops the others
                failures += 1
                record = error_record(str(path), exc)
                error_line(str(path), record["error"]["reason"], record["error"]["detail"])
                if fmt != "markdown":
                    print_json(record, lines=fmt == "jsonl")
                continue
            if fmt == "markdown":
                sys.stdout.write(as_markdown(article) + "\n")
            else:
                print_json(article.model_dump(mode="json"), lines=fmt == "jsonl")
    return 1 if failures else 0


def run(args: argparse.Namespace) -> int:
    files = list(iter_inputs(args.paths))
    if args.url and len(files) > 1:
        sys.stderr.write("error: --url applies to a single input file\n")
        return 2
    if args.url and normalize_url(args.url) is None:
        note(f"--url {args.url!r} is no absolute http(s) URL: the page URL counts as unknown")
    fmt = args.format or ("json" if len(files) == 1 else "jsonl")
    return asyncio.run(_extract_all(files, args, fmt))
