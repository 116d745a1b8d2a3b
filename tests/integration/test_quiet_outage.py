"""A broker outage in a worker's log, on the real broker: SIGKILLed under a running worker
(JSON logs at ``info``, the chart's default), started again on the same ports and data.
Without the client filter aiokafka wrote about 74 ERROR lines a second; the log must read as
the broker watch's line when the outage starts, the first line of each kind the Kafka client
wrote before the probe noticed, and one line when the broker answers again."""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from article_runtime.streams.kafka.admin import ensure_topics
from article_runtime.streams.local.broker import local_broker
from article_runtime.streams.service.logs import LOG_FORMAT_ENV, LOG_LEVEL_ENV
from tests.integration.stream_support import Flow

pytestmark = pytest.mark.kafka
OUTAGE_S = 30.0


def log_lines(path: Path, skip: int = 0) -> list[dict[str, Any]]:
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()[skip:]
    return [json.loads(line) for line in lines if line.startswith("{")]


def test_a_broker_outage_is_a_few_lines_not_one_per_client_retry(tmp_path: Path) -> None:
    with local_broker(start_timeout_s=120) as broker:
        ensure_topics(broker.connection)
        f = Flow(broker.connection, tmp_path, None)
        settings = {LOG_FORMAT_ENV: "json", LOG_LEVEL_ENV: "info"}
        worker = f.worker("w1", settings=settings)
        try:
            worker.start(timeout_s=120)
            time.sleep(3)
            before = len(worker.log_path.read_text().splitlines())
            broker.kill()
            time.sleep(OUTAGE_S)
            during = log_lines(worker.log_path, before)
            broker.start()
            deadline = time.monotonic() + 90
            back: list[dict[str, Any]] = []
            while not back and time.monotonic() < deadline:
                time.sleep(1)
                back = [
                    line
                    for line in log_lines(worker.log_path, before)
                    if line.get("event") == "broker_reachable"
                ]
        finally:
            worker.kill()
            broker.kill()
    events = Counter(line.get("event") for line in during)
    assert events["broker_unreachable"] == 1, during  # no reminder within the first minute
    client = [line for line in during if line["logger"].startswith("aiokafka")]
    kinds = Counter(line["message"].split(":")[0] for line in client)
    assert all(count == 1 for count in kinds.values()), kinds  # each kind once
    assert len(during) <= 20, [line["message"] for line in during]
    (reachable,) = back
    assert reachable["held_back"] > 10 * OUTAGE_S  # what the client logged meanwhile
