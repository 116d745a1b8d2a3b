"""``/metrics``: what one worker did, in Prometheus text format.

Counted at the edges, never in the core:
- a Faust sensor (``FlowSensor``) sees every event an agent's stream takes in: messages in
  per agent and topic;
- the wiring (``article_runtime.streams.service.wiring``) times each message from taking it to its
  outputs on the broker (stage latency), tracks the messages in progress (for hygiene and
  enrichment: the model calls in flight), and hands every record the broker acknowledged here
  (messages out per agent and topic, compensation events by stage, kind and reason; articles settled
  by path);
- the LLM runtime's trace hook (``on_generation``): model attempts by prompt, role, model
  and outcome, their latency, tokens and cost by model;
- at scrape time (``article_runtime.streams.service.metrics_page.StateCollector``): consumer lag per
  topic partition (the consumer's highwater against its committed offset), table sizes, readiness.

Faust's own Prometheus sensor runs beside ours (``faust_*``: messages received, commits,
rebalances, web requests), its latency histograms in seconds (``faust_*_seconds``, see
``faust_metrics``). It counts none of the records the worker produces: the stages' outputs
and the tables' changes go to the producer past Faust's topics, where its send hooks sit (the
broker's own per-topic metrics show the changelogs' write rate). The process itself (CPU
seconds, resident memory, open and maximum file descriptors, start time) is
``prometheus_client``'s ``ProcessCollector`` (``process_*``). Counters count per
worker and since its start; a redelivered message (after a crash or rebalance) is counted
again, as it is processed again.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import faust
from faust.agents import current_agent
from faust.sensors.monitor import Monitor
from faust.sensors.prometheus import MS_LATENCY_BUCKETS, FaustMetrics, PrometheusMonitor
from faust.types import TP, EventT, StreamT
from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.metrics import MetricWrapperBase

from article_runtime.llm.records import GenerationRecord
from article_runtime.streams.kafka.topics import (
    ARTICLE_ASSEMBLED,
    ARTICLE_COMPENSATION,
    ARTICLE_ENRICHED,
    TOPICS,
)

if TYPE_CHECKING:
    from article_runtime.streams.service.emit import Emit


def flow_topics() -> frozenset[str]:
    """The flow's topics by their names on the cluster (configurable: resolved when asked)."""
    return frozenset(t.name for t in TOPICS)


NO_AGENT = "-"  # produced outside any agent (none today)
STAGE_BUCKETS_S = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120)
MODEL_BUCKETS_S = (0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120)
# No ``*_created`` series: they double the page and nothing here reads them.
disable_created_metrics()  # type: ignore[no-untyped-call]
# Faust's latency histograms (each ``FaustMetrics`` field) as they are exported here: in
# seconds, Prometheus' base unit, instead of Faust's milliseconds.
FAUST_SECONDS = {
    "events_runtime_latency": ("faust_events_runtime_seconds", "Seconds an agent took per event"),
    "producer_send_latency": (
        "faust_producer_send_latency_seconds",
        "Seconds from a send through Faust's topics to the broker's acknowledgement",
    ),
    "producer_error_send_latency": (
        "faust_producer_error_send_latency_seconds",
        "Seconds from a send through Faust's topics to its failure",
    ),
    "assign_latency": ("faust_assign_latency_seconds", "Seconds the partition assignor took"),
    "rebalance_done_consumer_latency": (
        "faust_rebalance_done_consumer_latency_seconds",
        "Seconds from a rebalance's start to the consumer's reply that it is done",
    ),
    "rebalance_done_latency": (
        "faust_rebalance_done_latency_seconds",
        "Seconds from a rebalance's start to its end, table recovery included",
    ),
    "http_latency": ("faust_http_latency_seconds", "Seconds a web request took"),
    "consumer_commit_latency": (
        "faust_consumer_commit_latency_seconds",
        "Seconds a commit of offsets took",
    ),
}


class Children:
    """Each labelled child of a metric, looked up once.

    ``labels()`` checks its arguments, builds the key and takes the metric's lock on every
    call; the worker makes about 40 labelled updates per article (ours and Faust's sensor),
    about 1% of its CPU in ``make bench-stream --profile``. A child held here stays the one the
    metric exports as long as nobody removes it from the metric (``forget`` first).
    """

    def __init__(self) -> None:
        self._held: dict[tuple[MetricWrapperBase, tuple[str, ...]], Any] = {}

    def __call__(self, metric: MetricWrapperBase, *values: Any) -> Any:
        """``metric.labels(*values)``; values in the order the metric names its labels."""
        key = (metric, tuple(map(str, values)))  # prometheus_client labels by the text
        child = self._held.get(key)
        if child is None:
            child = self._held[key] = metric.labels(*key[1])
        return child

    def forget(self) -> None:
        self._held.clear()


class FlowMetrics:
    """The worker's metrics on their own registry (one per app, so tests can run several)."""

    def __init__(self) -> None:
        self.child = Children()
        r = self.registry = CollectorRegistry()
        ProcessCollector(registry=r)  # process_*: CPU, memory, open files
        self.messages_in = Counter(
            "article_runtime_messages_in",
            "Messages an agent's stream took in, by agent and topic",
            ["agent", "topic"],
            registry=r,
        )
        self.messages_out = Counter(
            "article_runtime_messages_out",
            "Messages produced and acknowledged by the broker, by agent and topic",
            ["agent", "topic"],
            registry=r,
        )
        self.stage_seconds = Histogram(
            "article_runtime_stage_seconds",
            "Seconds from taking a message to its outputs acknowledged by the broker",
            ["stage"],
            buckets=STAGE_BUCKETS_S,
            registry=r,
        )
        self.in_flight = Gauge(
            "article_runtime_in_flight",
            "Messages being processed per stage (hygiene, enrichment: model calls in flight)",
            ["stage"],
            registry=r,
        )
        self.model_calls = Counter(
            "article_runtime_model_calls",
            "Model attempts by prompt, role, model and outcome (ok, invalid, timeout, ...)",
            ["prompt", "role", "model", "outcome"],
            registry=r,
        )
        self.model_seconds = Histogram(
            "article_runtime_model_call_seconds",
            "Seconds one model attempt took, by prompt and model",
            ["prompt", "model"],
            buckets=MODEL_BUCKETS_S,
            registry=r,
        )
        self.tokens = Counter(
            "article_runtime_model_tokens",
            "Tokens by model and kind (prompt, completion)",
            ["model", "kind"],
            registry=r,
        )
        self.cost = Counter(
            "article_runtime_model_cost_usd",
            "Cost in USD by model, from the providers file's prices",
            ["model"],
            registry=r,
        )
        self.compensations = Counter(
            "article_runtime_compensation_events",
            "Compensation events produced, by stage, kind (fallback, terminal) and reason",
            ["stage", "kind", "reason"],
            registry=r,
        )
        self.settled = Counter(
            "article_runtime_articles_settled",
            "Articles settled per phase (hygiene, enrichment) and path "
            "(primary, fallback, deterministic, terminal)",
            ["phase", "path"],
            registry=r,
        )

    # -- the edges --------------------------------------------------------------------------

    @contextmanager
    def processing(self, stage: str) -> Iterator[None]:
        """Around one message's work: in flight while it runs, its latency once done. The
        label is the agent (``ecp_standin`` shares the enrichment stage), else ``stage``."""
        agent = _agent()
        stage = agent if agent != NO_AGENT else stage
        gauge = self.child(self.in_flight, stage)
        gauge.inc()
        started = time.perf_counter()
        try:
            yield
        finally:
            gauge.dec()
        self.child(self.stage_seconds, stage).observe(time.perf_counter() - started)

    def on_generation(self, generation: GenerationRecord) -> None:
        """The LLM runtime's trace hook: one model attempt."""
        attempt, child, prompt = generation.attempt, self.child, generation.prompt_name
        model = attempt.model or "unknown"
        child(self.model_calls, prompt, attempt.role, model, attempt.outcome).inc()
        if attempt.latency_ms is not None:
            child(self.model_seconds, prompt, model).observe(attempt.latency_ms / 1000)
        if attempt.prompt_tokens:
            child(self.tokens, model, "prompt").inc(attempt.prompt_tokens)
        if attempt.completion_tokens:
            child(self.tokens, model, "completion").inc(attempt.completion_tokens)
        if attempt.cost_usd:
            child(self.cost, model).inc(attempt.cost_usd)

    def on_published(self, emits: Iterable[Emit]) -> None:
        """Records the broker has acknowledged: messages out, compensations, settled articles."""
        agent, child = _agent(), self.child
        for emit in emits:
            record = emit.record
            child(self.messages_out, agent, emit.topic.name).inc()
            if emit.topic is ARTICLE_COMPENSATION:
                stage, kind, reason = record["stage"], record["kind"], record["reason"]
                child(self.compensations, stage, kind, reason).inc()
                if kind == "terminal":
                    phase = "enrichment" if stage == "enrichment" else "hygiene"
                    child(self.settled, phase, "terminal").inc()
            elif emit.topic is ARTICLE_ASSEMBLED:
                child(self.settled, "hygiene", record["path"]).inc()
            elif emit.topic is ARTICLE_ENRICHED:
                child(self.settled, "enrichment", record["path"]).inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)


class _FromMilliseconds(Histogram):
    """A histogram in seconds fed in milliseconds, as Faust's sensor observes every latency
    (``Monitor.ms_since``)."""

    def observe(self, amount: float, exemplar: dict[str, str] | None = None) -> None:
        super().observe(amount / 1000, exemplar)


def faust_metrics(registry: CollectorRegistry) -> FaustMetrics:
    """Faust's sensor metrics on ``registry``, each latency histogram in seconds and named so
    (``FAUST_SECONDS``) instead of Faust's millisecond ones (``faust_events_runtime_ms``,
    ``faust_http_latency``, ...), which ``histogram_quantile`` and dashboards would read as
    seconds."""
    metrics = FaustMetrics.create(registry, "faust")
    buckets = [bound / 1000 for bound in MS_LATENCY_BUCKETS]
    seconds: dict[str, Any] = {}  # FaustMetrics fields by name
    for field, (name, documentation) in FAUST_SECONDS.items():
        registry.unregister(getattr(metrics, field))
        seconds[field] = _FromMilliseconds(name, documentation, buckets=buckets, registry=registry)
    return metrics._replace(**seconds)


class FaustMonitor(PrometheusMonitor):
    """Faust's own sensor (``faust_*``: messages received, commits, rebalances, web requests)
    without its per-agent-event and per-table-access series.

    Those hooks ran for every event each agent took and every table read and write, each with
    a labelled Prometheus update: about 1 ms of worker CPU per article in ``make bench-stream``
    (``--profile``). Messages per agent and stage latency are counted by ``FlowSensor`` and
    ``FlowMetrics.processing`` instead, once per message. The two per-message hooks left
    update the same series through held children (``Children``), forgotten when Faust removes
    its partitions' series at a rebalance.
    """

    def __init__(self, metrics: FaustMetrics, **kwargs: Any) -> None:
        super().__init__(metrics=metrics, **kwargs)
        self._child = Children()

    def on_message_in(self, tp: TP, offset: int, message: Any) -> None:
        Monitor.on_message_in(self, tp, offset, message)  # its own counts, without labels
        m = self._metrics
        m.messages_received.inc()
        m.active_messages.inc()
        self._child(m.messages_received_per_topics, tp.topic).inc()
        self._child(m.messages_received_per_topics_partition, tp.topic, tp.partition).set(offset)

    def track_tp_end_offset(self, tp: TP, offset: int) -> None:
        Monitor.track_tp_end_offset(self, tp, offset)
        self._child(self._metrics.topic_partition_end_offset, tp.topic, tp.partition).set(offset)

    def _clear_partition_related_metrics(self) -> None:
        self._child.forget()  # the series go: a child held would update one nobody exports
        super()._clear_partition_related_metrics()

    def on_stream_event_in(
        self, tp: TP, offset: int, stream: StreamT[Any], event: EventT[Any]
    ) -> dict[str, Any] | None:
        return None

    def on_stream_event_out(
        self,
        tp: TP,
        offset: int,
        stream: StreamT[Any],
        event: EventT[Any],
        state: dict[str, Any] | None = None,
    ) -> None:
        return None

    def on_table_get(self, table: Any, key: Any) -> None:
        return None

    def on_table_set(self, table: Any, key: Any, value: Any) -> None:
        return None

    def on_table_del(self, table: Any, key: Any) -> None:
        return None


class FlowSensor(faust.Sensor):
    """Messages in per agent: Faust calls it for every stream event. (Messages out are counted
    by ``FlowMetrics.on_published``: the stages produce past Faust's sensors.)"""

    def __init__(self, metrics: FlowMetrics, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.metrics = metrics

    def on_stream_event_in(
        self, tp: TP, offset: int, stream: StreamT[Any], event: EventT[Any]
    ) -> dict[str, Any] | None:
        metrics = self.metrics
        metrics.child(metrics.messages_in, _agent(), tp.topic).inc()
        return None


def _agent() -> str:
    agent = current_agent()
    return str(agent.name) if agent is not None else NO_AGENT
