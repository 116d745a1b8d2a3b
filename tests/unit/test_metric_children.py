"""Labelled children held by the metrics (``article_runtime.streams.service.metrics.Children``)
update the series the registry exports, as ``labels()`` would, including after Faust removes its
partitions' series at a rebalance."""

from __future__ import annotations

from types import SimpleNamespace

from faust.sensors.prometheus import FaustMetrics
from faust.types import TP
from hypothesis import given, settings
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry, Counter

from article_runtime.streams.service.metrics import Children, FaustMonitor

LABELS = st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(0, 3))


@settings(deadline=None)
@given(st.lists(LABELS, max_size=30))
def test_held_children_count_what_labels_would(updates: list[tuple[str, int]]) -> None:
    registry = CollectorRegistry()
    held = Counter("held", "", ["name", "partition"], registry=registry)
    plain = Counter("plain", "", ["name", "partition"], registry=registry)
    child = Children()
    for name, partition in updates:
        child(held, name, partition).inc()
        plain.labels(name=name, partition=partition).inc()
    assert samples(registry, "held_total") == samples(registry, "plain_total")


def samples(registry: CollectorRegistry, name: str) -> dict[tuple[tuple[str, str], ...], float]:
    return {
        tuple(sorted(s.labels.items())): s.value
        for metric in registry.collect()
        for s in metric.samples
        if s.name == name
    }


def test_faust_series_removed_at_a_rebalance_come_back_with_the_next_message() -> None:
    registry = CollectorRegistry()
    monitor = FaustMonitor(metrics=FaustMetrics.create(registry, "faust"))
    tp = TP("article.ingested", 2)
    message = SimpleNamespace(time_in=None)
    monitor.on_message_in(tp, 7, message)
    monitor.track_tp_end_offset(tp, 9)
    monitor._clear_partition_related_metrics()  # what Faust does when a rebalance starts
    assert samples(registry, "faust_messages_received_per_topics_partition") == {}
    monitor.on_message_in(tp, 8, message)
    monitor.track_tp_end_offset(tp, 12)
    key = (("partition", "2"), ("topic", "article.ingested"))
    assert samples(registry, "faust_messages_received_per_topics_partition") == {key: 8}
    assert samples(registry, "faust_topic_partition_end_offset") == {key: 12}
    # Faust removes the per-topic count too: it counts again from the next message.
    assert samples(registry, "faust_messages_received_per_topic_total") == {
        (("topic", "article.ingested"),): 1
    }
