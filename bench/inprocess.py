"""The stream's work without the stream: the yardstick ``bench.stream_throughput`` divides by.

For each article, in one process and one event loop: the candidate set, the hygiene call
(primary, then fallback, then the deterministic path, each answer judged once by the harness),
the assembly, and the enrichment call for one approved entity, against the same scripted
provider server the workers call. No Kafka, no tables, no lineage: what is left when every
cost of the stream is gone. Up to ``--in-flight`` articles run at once, as the workers run that
many model calls at once per calling agent.

Run by ``bench.stream_throughput`` as a child process (so its CPU is its own, apart from the
provider server's); it prints one JSON object: wall and CPU seconds over the measured articles,
the machine's CPU seconds (busy and in all) meanwhile, and each article's settle time.
``python -m bench.inprocess --providers FILE --articles N --warmup W --seed S [--loop L]``; the
articles are ``bench.page_cases.page_articles(W + N, S, --pages)``. ``--loop`` picks the event
loop (``article_runtime.streams.service.event_loop``): uvloop, as the workers, and the faster for
this work.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
from collections.abc import Sequence

from article_runtime.candidates import build_candidates
from article_runtime.cli.runtime import llm_runtime
from article_runtime.enrichment.call import enrich_article
from article_runtime.enrichment.model import Entity
from article_runtime.hygiene import hygiene_article
from article_runtime.llm.policy import LLMRuntime
from article_runtime.streams.service import event_loop
from bench.cpu import machine_cpu_seconds, stolen_cpu_seconds
from bench.page_cases import DEFAULT_PAGES, PAGE_SETS, page_articles
from tests.integration.stream_support import ENTITY
from tests.support.stream_cases import CaseArticle


async def one_article(case: CaseArticle, llm: LLMRuntime | None, entity: Entity) -> str:
    """Candidates, hygiene, assembly, enrichment: what the stream does for one article."""
    candidates = build_candidates(case.html, url=case.url, feed=None)
    article = await hygiene_article(candidates, case.html, source=case.article_id, llm=llm)
    result = await enrich_article(article, entity, llm=llm)
    return type(result).__name__


async def run_all(
    cases: Sequence[CaseArticle], llm: LLMRuntime | None, in_flight: int
) -> list[float]:
    """Every case, ``in_flight`` at once; each one's seconds from the start until it settled."""
    entity = Entity(qid=ENTITY[0], name=ENTITY[1])
    slots = asyncio.Semaphore(in_flight)
    started = time.monotonic()

    async def settled(case: CaseArticle) -> float:
        async with slots:
            await one_article(case, llm, entity)
        return time.monotonic() - started

    return list(await asyncio.gather(*(settled(c) for c in cases)))


def cpu_seconds() -> tuple[float, float]:
    times = os.times()
    return times.user + times.system, times.system


async def main_async(args: argparse.Namespace) -> dict[str, object]:
    cases = page_articles(args.warmup + args.articles, seed=args.seed, pages=args.pages)
    warm, measured = cases[: args.warmup], cases[args.warmup :]
    async with llm_runtime(args.providers) as llm:
        await run_all(warm, llm, args.in_flight)
        before, machine, started = cpu_seconds(), machine_cpu_seconds(), time.monotonic()
        stolen = stolen_cpu_seconds()
        times = await run_all(measured, llm, args.in_flight)
        wall, after = time.monotonic() - started, cpu_seconds()
        (busy_before, total_before), (busy, total) = machine, machine_cpu_seconds()
    return {
        "articles": len(measured),
        "wall_s": wall,
        "cpu_s": after[0] - before[0],
        "system_s": after[1] - before[1],
        "machine_busy_s": busy - busy_before,
        "machine_s": total - total_before,
        "machine_stolen_s": stolen_cpu_seconds() - stolen,
        "settle_times": times,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.inprocess")
    parser.add_argument("--providers", required=True, help="providers file (scripted server)")
    parser.add_argument("--articles", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--in-flight", type=int, default=8)
    parser.add_argument("--loop", choices=event_loop.EVENT_LOOPS, default="uvloop")
    parser.add_argument("--pages", choices=PAGE_SETS, default=DEFAULT_PAGES)
    args = parser.parse_args(argv)
    event_loop.use(args.loop)
    print(json.dumps(asyncio.run(main_async(args))), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
