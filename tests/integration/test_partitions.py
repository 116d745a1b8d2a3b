"""Partitions are a setting, read back from the topics, and scaling is real: six partitions
shared by three worker processes; topics read together with different counts are refused."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.admin import AdminClient
from confluent_kafka.cimpl import NewPartitions  # typed here; the admin re-export is not

from article_runtime.streams.kafka.admin import ensure_topics, partition_counts
from article_runtime.streams.kafka.partitions import PARTITIONS_ENV
from article_runtime.streams.kafka.topics import ARTICLE_ASSEMBLED, ECP_VERDICT, TOPICS
from article_runtime.streams.local.broker import local_kafka
from article_runtime.streams.local.worker_process import WorkerProcess
from tests.integration.stream_support import eventually, flow
from tests.integration.test_stream_flow import check_case, scripted
from tests.support.openai_server import ScriptedOpenAIServer
from tests.support.stream_cases import make_articles

pytestmark = pytest.mark.kafka


def owned(workers: dict[str, WorkerProcess]) -> dict[str, list[int]]:
    found = {}
    for name, worker in workers.items():
        health = worker.get("/health/")
        found[name] = list(health["partitions"]) if health else []
    return found


def test_three_workers_share_six_partitions_and_the_flow_completes(
    tmp_path: Path, server: ScriptedOpenAIServer
) -> None:
    cases = make_articles(30, seed=61)
    scripted(server, cases)
    ids = [c.article_id for c in cases]
    with flow(tmp_path, server.base_url, partitions=6) as f:
        assert set(
            partition_counts(
                AdminClient(f.connection.confluent()), [t.name for t in TOPICS]
            ).values()
        ) == {6}
        # No partition setting: each worker reads the count from the topics.
        workers = {name: f.worker(name) for name in ("a", "b", "c")}
        try:
            for worker in workers.values():
                worker.start(need_partitions=False)

            def spread() -> None:
                now = owned(workers)
                assert all(now.values()), now
                assert sorted(p for ps in now.values() for p in ps) == list(range(6)), now

            eventually(spread, timeout_s=90)
            f.publish_cases(cases)
            outcomes = f.follow(ids, timeout_s=180, settle_grace_s=1.0)
            for case in cases:
                check_case(case, outcomes[case.article_id])

            def counted() -> None:
                ingested = 0
                for worker in workers.values():
                    counters: Any = worker.get("/counters/")
                    assert counters is not None
                    shared = counters["counters"].get("ingested", 0)
                    assert shared > 0, (owned(workers), worker.tail(30))  # each did a share
                    ingested += shared
                assert ingested == len(cases)
                for case in cases:  # any worker finds any article's owner among six
                    lineage: Any = workers["a"].get(f"/articles/{case.article_id}/")
                    assert lineage is not None and lineage["article_id"] == case.article_id

            eventually(counted, timeout_s=120)  # a loaded machine may rebalance meanwhile
        finally:
            for worker in workers.values():
                worker.stop()
    assert not server.responder_errors


def test_a_worker_refuses_topics_read_together_with_different_counts(tmp_path: Path) -> None:
    with local_kafka() as connection:
        ensure_topics(connection, partitions=3)
        admin = AdminClient(connection.confluent())
        # Someone raised one topic's partitions by hand, as the chart once advised.
        grown = admin.create_partitions([NewPartitions(ECP_VERDICT.name, 5)])
        for future in grown.values():
            future.result(timeout=30)
        # The setting sizes new topics only: it neither grows the others nor hides the gap.
        env = {**os.environ, **connection.environ(), PARTITIONS_ENV: "5"}
        done = subprocess.run(
            [sys.executable, "-m", "article_runtime.streams.worker"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        counts = partition_counts(admin, [t.name for t in TOPICS])
    output = done.stdout + done.stderr
    assert done.returncode == 2, output
    assert "Traceback" not in output
    (line,) = [ln for ln in output.splitlines() if ln.startswith("article-runtime-worker:")]
    assert f"{ECP_VERDICT.name} (5)" in line and f"{ARTICLE_ASSEMBLED.name} (3)" in line
    assert "agent enrichment" in line
    # Refusing changed nothing: no topic was created or grown to "fix" it.
    assert counts[ECP_VERDICT.name] == 5
    assert {n for n, c in counts.items() if c == 3} == {t.name for t in TOPICS} - {ECP_VERDICT.name}
