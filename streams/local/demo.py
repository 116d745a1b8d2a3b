"""``make demo``: the whole flow on the bundled samples, on a real local broker.

Starts a broker (or uses ``KAFKA_BOOTSTRAP_SERVERS``) and one worker with the LOCAL ECP
stand-in, publishes ``samples/`` with ``article-runtime publish`` as an ingestion team would
(JSON lines on its stdin, each ID suffixed with this run's, so runs on one cluster stay apart),
follows every article to its outcome with
a progress bar, prints one line per article, and stops everything it started. Providers come
from ``ARTICLE_RUNTIME_PROVIDERS``; without them hygiene is deterministic and enrichment ends
``no_provider``, which the summary states.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from prometheus_client.parser import text_string_to_metric_families
from tqdm import tqdm

from article_runtime.llm.providers import PROVIDERS_ENV
from article_runtime.streams.commands.follow import ArticleOutcome, follow
from article_runtime.streams.commands.publish_inputs import article_id_of, html_files
from article_runtime.streams.kafka.admin import ensure_topics
from article_runtime.streams.kafka.connection import KafkaConnection
from article_runtime.streams.kafka.topics import ARTICLE_INGESTED
from article_runtime.streams.local.broker import free_ports, local_kafka
from article_runtime.streams.local.worker_process import WorkerProcess
from article_runtime.streams.service.settings import ECP_STANDIN_NAME_ENV, ECP_STANDIN_QID_ENV
from article_runtime.text.segments import words

DEMO_ENTITY = ("Q155", "Brazil")  # any entity will do: the stand-in approves everything


def settled_counters(worker: WorkerProcess, articles: int, wait_s: float = 10.0) -> dict[str, Any]:
    """The worker's counters once its ledger has caught up (it trails the outputs a little)."""
    deadline = time.monotonic() + wait_s
    last: dict[str, Any] = {}
    while time.monotonic() < deadline:
        seen = worker.get("/counters/") or {}
        if seen == last and seen.get("counters", {}).get("ingested") == articles:
            break
        last = seen
        time.sleep(0.5)
    return last


METRICS_SHOWN = (
    "article_runtime_articles_settled_total",
    "article_runtime_compensation_events_total",
    "article_runtime_model_calls_total",
    "article_runtime_model_cost_usd_total",
    "article_runtime_stage_seconds_count",
    "article_runtime_table_keys",
    "article_runtime_ready",
)


def metrics_page(worker: WorkerProcess) -> str | None:
    url = f"http://127.0.0.1:{worker.web_port}/metrics"
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return str(response.read().decode("utf-8"))
    except OSError:
        return None


def handled_by_agent(page: str) -> list[str]:
    """One line per agent: the messages it took and made, by topic (``/metrics``)."""
    counts: dict[str, dict[str, dict[str, int]]] = {}
    ways = {"article_runtime_messages_in": "took", "article_runtime_messages_out": "made"}
    for family in text_string_to_metric_families(page):
        way = ways.get(family.name)
        if way is None:
            continue
        for sample in family.samples:
            if sample.name.endswith("_total") and sample.value:
                by_topic = counts.setdefault(sample.labels["agent"], {}).setdefault(way, {})
                by_topic[sample.labels["topic"]] = int(sample.value)
    lines = []
    for agent, done in sorted(counts.items()):
        parts = [
            f"{way} " + ", ".join(f"{n} {topic}" for topic, n in sorted(done[way].items()))
            for way in ("took", "made")
            if way in done
        ]
        lines.append(f"{agent:<12} " + "; ".join(parts))
    return lines


def metrics_summary(page: str | None) -> list[str]:
    """The interesting lines of the worker's ``/metrics`` (the page has many more)."""
    if page is None:
        return ["(no answer from /metrics)"]
    lag = ("article_runtime_consumer_lag{", f'topic="{ARTICLE_INGESTED.name}"')
    return [
        line
        for line in page.splitlines()
        if line.startswith(METRICS_SHOWN) or (line.startswith(lag[0]) and lag[1] in line)
    ]


def summary_line(name: str, outcome: ArticleOutcome) -> str:
    failed = outcome.hygiene_terminal
    if failed is not None:
        return f"{name:<34} FAILED at {failed['stage']}: {failed['reason']}"
    if not outcome.assembled:
        return f"{name:<34} not settled in time"
    article = outcome.assembled[0]
    count = len(words(article["markdown"], article["language"] or "root"))
    head = f"{name:<34} {article['path']:<13} {count:>5} words  {article['title'][:48]!r}"
    lines = [head]
    for qid in outcome.approved:
        result = outcome.enrichment_outcome(qid)
        if result is None:
            lines.append(f"{'':<34} enrichment for {qid}: not settled in time")
        elif "sentiment" in result:
            tags = ", ".join(t["tag"] for t in result["tags"])
            lines.append(f"{'':<34} {qid}: {result['sentiment']} | {tags}")
        else:
            lines.append(f"{'':<34} enrichment for {qid}: {result['reason']}")
    return "\n".join(lines)


def publish_with_the_command(connection: KafkaConnection, ids: dict[str, Path]) -> int:
    """``article-runtime publish -`` in a process of its own, fed one JSON line per page."""
    lines = "".join(
        json.dumps({"article_id": a, "url": p.resolve().as_uri(), "html_path": str(p)}) + "\n"
        for a, p in ids.items()
    )
    print("$ article-runtime publish - < (one JSON line per sample: article_id, url, html_path)")
    done = subprocess.run(
        [sys.executable, "-m", "article_runtime.streams.commands", "publish", "-"],
        input=lines.encode("utf-8"),
        env={**os.environ, **connection.environ()},
        check=False,
    )
    return done.returncode


def run(samples: Path, *, timeout_s: float) -> int:
    files = html_files([samples])
    run_id = uuid.uuid4().hex[:6]
    ids = {f"{article_id_of(p)}@{run_id}": p for p in files}
    providers = os.environ.get(PROVIDERS_ENV)
    print(f"providers: {providers or 'none: hygiene deterministic, enrichment ends no_provider'}")
    print(f"ECP: LOCAL STAND-IN approving every article for {DEMO_ENTITY[0]} ({DEMO_ENTITY[1]})")
    with (
        tempfile.TemporaryDirectory(prefix="article-runtime-demo-") as work,
        local_kafka() as kafka,
    ):
        ensure_topics(kafka)
        (port,) = free_ports(1)
        env = {ECP_STANDIN_QID_ENV: DEMO_ENTITY[0], ECP_STANDIN_NAME_ENV: DEMO_ENTITY[1]}
        log = Path(work) / "worker.log"
        print(f"broker {kafka.bootstrap}; worker web views on http://127.0.0.1:{port}/counters/")
        with WorkerProcess(kafka, web_port=port, log_path=log, env=env) as worker:
            worker.start()
            if publish_with_the_command(kafka, ids) != 0:
                return 1
            started = time.monotonic()
            with tqdm(total=len(ids), desc="articles", unit="art", file=sys.stdout) as bar:
                outcomes = follow(
                    kafka, ids, timeout_s=timeout_s, on_settled=lambda _o: bar.update()
                )
            elapsed = time.monotonic() - started
            counters = settled_counters(worker, len(ids))
            page = metrics_page(worker)
        print()
        for article_id, outcome in outcomes.items():
            print(summary_line(article_id.rsplit("@", 1)[0], outcome))
        settled = sum(o.settled for o in outcomes.values())
        print(f"\n{settled}/{len(ids)} articles settled in {elapsed:.1f} s")
        print(f"worker counters: {counters.get('counters', {})}")
        if page is not None:
            print("agents (what each took and made, by topic):\n  " + "\n  ".join(
                handled_by_agent(page)))  # fmt: skip
        print("worker /metrics (excerpt):\n  " + "\n  ".join(metrics_summary(page)))
    return 0 if settled == len(ids) else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m article_runtime.streams.local.demo", description=__doc__
    )
    parser.add_argument("samples", nargs="?", type=Path, default=Path("samples"))
    parser.add_argument("--timeout", type=float, default=180.0, help="seconds to wait")
    args = parser.parse_args(argv)
    return run(args.samples, timeout_s=args.timeout)


if __name__ == "__main__":
    raise SystemExit(main())
