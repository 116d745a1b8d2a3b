"""``/metrics`` in Prometheus' base units: Faust's latency histograms in seconds, and the
process's own CPU, memory and open files."""

from __future__ import annotations

from typing import Any

from faust.sensors.prometheus import FaustMetrics
from prometheus_client import CollectorRegistry, Histogram
from prometheus_client.parser import text_string_to_metric_families

from article_runtime.streams.service.metrics import (
    FAUST_SECONDS,
    FaustMonitor,
    FlowMetrics,
    faust_metrics,
)


def families(registry: CollectorRegistry) -> dict[str, Any]:
    return {family.name: family for family in registry.collect()}


def test_every_histogram_faust_makes_is_exported_in_seconds() -> None:
    theirs = FaustMetrics.create(CollectorRegistry(), "faust")
    histograms = {f for f, value in theirs._asdict().items() if isinstance(value, Histogram)}
    assert histograms == set(FAUST_SECONDS)  # a histogram a new Faust adds is not missed
    registry = CollectorRegistry()
    faust_metrics(registry)
    exported = families(registry)
    faust_histograms = {n for n, f in exported.items() if f.type == "histogram"}
    assert len(faust_histograms) == len(histograms)
    assert all(name.endswith("_seconds") for name in faust_histograms), faust_histograms
    assert not any(
        name.endswith("_ms") or "in ms" in f.documentation for name, f in exported.items()
    )


def test_a_latency_faust_measures_in_milliseconds_is_observed_in_seconds() -> None:
    registry = CollectorRegistry()
    monitor = FaustMonitor(metrics=faust_metrics(registry))
    started = monitor.time() - 0.3  # a commit that began 300 ms ago
    monitor.on_commit_completed(consumer=None, state=started)  # type: ignore[arg-type]
    (family,) = [f for f in registry.collect() if f.name == "faust_consumer_commit_latency_seconds"]
    total = next(s.value for s in family.samples if s.name.endswith("_sum"))
    assert 0.3 <= total < 5.0  # seconds, not 300 (milliseconds)
    below_quarter = next(
        s.value for s in family.samples if s.name.endswith("_bucket") and s.labels["le"] == "0.25"
    )
    assert below_quarter == 0


def test_the_page_carries_the_process_cpu_memory_and_open_files() -> None:
    page = FlowMetrics().render().decode()
    names = {family.name for family in text_string_to_metric_families(page)}
    assert {
        "process_cpu_seconds",
        "process_resident_memory_bytes",
        "process_open_fds",
        "process_max_fds",
        "process_start_time_seconds",
    } <= names
