"""``bench.kafka_clients`` on the real broker: each client's job runs to the end, and what a
client produced is all read back, so a figure is never one of records that went missing."""

from __future__ import annotations

import math

import pytest

from article_runtime.streams.local.broker import local_kafka
from bench.kafka_clients import CLIENTS, JOBS, measure

pytestmark = pytest.mark.kafka  # starts a broker


def test_each_client_produces_and_reads_back_every_record() -> None:
    lines: list[str] = []
    with local_kafka() as connection:
        figures = measure(
            connection, records=300, rounds=1, in_flight=8, value_bytes=700, report=lines.append
        )
    assert set(figures) == {(job, client) for job in JOBS for client in CLIENTS}
    for (job, client), per_round in figures.items():
        assert len(per_round) == 1, (job, client)
        cost = per_round[0]
        assert math.isfinite(cost.process_us) and cost.process_us > 0, (job, client)
        # The loop's thread is one of the process's: never more (the two clocks tick apart by a
        # hair), and it did some of the work.
        assert 0 < cost.loop_us <= cost.process_us * 1.02, (job, client, cost)
    assert len(lines) == len(JOBS) * len(CLIENTS)
