"""The ``/metrics`` page of a worker: the sensors on its app and what is read when scraped.

``article_runtime.streams.service.metrics`` counts what passes (it needs nothing of the app); this
module reads the running worker (its consumer's lag, its tables, the messages it holds, readiness),
so it sits above the wiring that holds them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, cast

import faust
from prometheus_client import CONTENT_TYPE_LATEST
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from article_runtime.streams.service.metrics import (
    FaustMonitor,
    FlowSensor,
    faust_metrics,
    flow_topics,
)
from article_runtime.streams.service.wiring import Wiring

if TYPE_CHECKING:
    from article_runtime.streams.kafka.consumer import Transport


def install(w: Wiring, ready: Callable[[], list[str]]) -> None:
    """Sensors on the app, the scrape-time collector and the ``/metrics`` page."""
    flow, app = w.metrics, w.app
    app.sensors.add(FlowSensor(flow))
    app.monitor = FaustMonitor(metrics=faust_metrics(flow.registry))
    flow.registry.register(StateCollector(w, ready))

    @app.page("/metrics")
    async def metrics(web: faust.web.View, request: faust.web.Request) -> faust.web.Response:
        return web.bytes(flow.render(), headers={"Content-Type": CONTENT_TYPE_LATEST})


def partition_lag(consumer: Any) -> list[tuple[str, int, int, int]]:
    """``(topic, partition, highwater, committed)`` for every flow partition this worker
    consumes whose highwater is known. A partition with nothing committed yet counts from
    offset 0 (exact until retention deletes the log's first segments)."""
    found = []
    try:
        assigned = consumer.assignment()
    except Exception:  # not started, or between two assignments
        return []
    committed = getattr(consumer, "_committed_offset", {})  # Faust's view of its commits
    for tp in sorted(assigned):
        if tp.topic not in flow_topics():
            continue
        try:
            end = consumer.highwater(tp)
        except Exception:  # revoked meanwhile
            continue
        if end is None:
            continue  # nothing fetched yet: the highwater is not known
        found.append((tp.topic, tp.partition, int(end), int(committed.get(tp) or 0)))
    return found


class StateCollector(Collector):
    """Gauges read when scraped: lag, table sizes, messages and bytes held, readiness."""

    def __init__(self, w: Wiring, not_ready: Callable[[], list[str]]) -> None:
        self.w, self.not_ready = w, not_ready

    def collect(self) -> Iterable[Metric]:
        lag = GaugeMetricFamily(
            "article_runtime_consumer_lag",
            "Messages on a partition this worker consumes not yet committed "
            "(highwater - committed offset)",
            labels=["topic", "partition"],
        )
        end = GaugeMetricFamily(
            "article_runtime_partition_highwater",
            "The partition's end offset as the consumer last saw it",
            labels=["topic", "partition"],
        )
        for topic, partition, highwater, committed in partition_lag(self.w.app.consumer):
            lag.add_metric([topic, str(partition)], max(0, highwater - committed))
            end.add_metric([topic, str(partition)], highwater)
        sizes = GaugeMetricFamily(
            "article_runtime_table_keys",
            "Keys held in each table on this worker (active and standby partitions)",
            labels=["table"],
        )
        for name, table in self.w.tables.items():
            sizes.add_metric([name], len(table.data))
        held = GaugeMetricFamily(
            "article_runtime_messages_held",
            "Input messages this worker holds and has not acknowledged, by how far each got "
            "(fetched, read, delivered to an agent's queue, received, working, done); the "
            "queues are bounded, so a backlog stays on the broker",
            labels=["stage"],
        )
        for stage, count in cast("Transport", self.w.app.transport).gate.held().items():
            held.add_metric([stage], count)
        weight = GaugeMetricFamily(
            "article_runtime_bytes_in_flight",
            "Bytes of input messages a stage holds in flight (hygiene: its pages, at most "
            "ARTICLE_RUNTIME_PAGES_IN_FLIGHT_MIB but for one larger page alone)",
            labels=["stage"],
        )
        for stage, now in self.w.bytes_in_flight.items():
            weight.add_metric([stage], now())
        waiting = GaugeMetricFamily(
            "article_runtime_partitions_awaiting_schema",
            "Partitions this worker holds at a record whose writer schema it does not know "
            "(a newer release's), waiting for a worker that knows it",
            labels=["topic"],
        )
        unknown = cast("Transport", self.w.app.transport).unknown_writers
        for topic, count in Counter(tp.topic for tp in (unknown.paused if unknown else ())).items():
            waiting.add_metric([topic], count)
        reasons = self.not_ready()
        ready = GaugeMetricFamily(
            "article_runtime_ready", "1 when the readiness probe passes, else 0"
        )
        ready.add_metric([], 0 if reasons else 1)
        return [lag, end, sizes, held, weight, waiting, ready]
