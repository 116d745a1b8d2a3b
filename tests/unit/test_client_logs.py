"""A broker outage reads as a few lines, not aiokafka's line per retry: the worker's logging
(``article_runtime.streams.service.logs.logging_config``) with aiokafka's own loggers driven as they
log during an outage (the lines and templates seen on the real broker, about 74 a second), and
the broker watch told what its probe sees. The real broker stopped under a worker:
``tests/integration/test_quiet_outage.py``."""

from __future__ import annotations

import io
import json
import logging
import logging.config
from collections.abc import Iterator
from typing import Any

import pytest

from article_runtime.llm.providers import parse_providers
from article_runtime.streams.service import logs
from article_runtime.streams.service.broker_watch import REMIND_EVERY_S, START_GRACE_S, BrokerWatch
from article_runtime.streams.service.client_logs import REPEAT_EVERY_S, ClientLines

# What aiokafka 0.13 logs, per logger, each time it retries against a broker that is gone.
RETRY_LINES = (
    ("aiokafka", "Unable connect to node with id %s: %s", (1, "[Errno 111] Connection refused")),
    ("aiokafka", "Unable to update metadata from %s", ([1],)),
    ("aiokafka.consumer.fetcher", "Failed fetch messages from %s: %s", (1, "NodeNotReadyError")),
    (
        "aiokafka.consumer.group_coordinator",
        "Group Coordinator Request failed: %s",
        ("NodeNotReadyError",),
    ),
)
PER_SECOND = 74


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def worker_logging() -> Iterator[tuple[io.StringIO, ClientLines, Clock]]:
    """The worker's logging at ``info`` into a buffer, its client filter on a fake clock."""
    out, clock = io.StringIO(), Clock()
    lines = ClientLines(clock)
    config = logs.logging_config(logs.LogSettings("json", "info"), secrets=())
    config["filters"]["client_lines"] = {"()": lambda: lines}
    config["handlers"]["default"]["stream"] = out
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    logging.config.dictConfig(config)
    try:
        yield out, lines, clock
    finally:
        root.handlers[:], root.level = saved


def read(out: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.getvalue().splitlines()]


def retrying(clock: Clock, seconds: int, watch: BrokerWatch | None = None) -> None:
    """aiokafka retrying for ``seconds``; the watch's probe fails every 2 s, if given."""
    for second in range(seconds):
        for n in range(PER_SECOND):
            name, template, args = RETRY_LINES[n % len(RETRY_LINES)]
            logging.getLogger(name).error(template, *args)
        clock.now += 1
        if watch is not None and second % 2 == 1:
            watch.failed("KafkaError: Unable to get cluster metadata", now=clock.now)


def test_an_outage_is_one_line_when_it_starts_a_reminder_a_minute_and_one_when_it_ends(
    worker_logging: tuple[io.StringIO, ClientLines, Clock],
) -> None:
    out, lines, clock = worker_logging
    watch = BrokerWatch(started=clock.now, last_ok=clock.now, client_lines=lines)
    retrying(clock, 3)  # before the probe notices: the first line of each kind only
    before = read(out)
    assert [(line["logger"], line["level"]) for line in before] == [
        (name, "error") for name, _, _ in RETRY_LINES
    ]
    outage_s = 150
    retrying(clock, outage_s, watch)
    watch.answered(clock.now)
    during = read(out)[len(before) :]
    events = [(line["level"], line.get("event")) for line in during]
    reminders = int((outage_s - 1) // REMIND_EVERY_S)
    assert events == [
        ("warning", "broker_unreachable"),
        *[("warning", "broker_unreachable")] * reminders,
        ("info", "broker_reachable"),
    ]
    noticed_after_s = 2  # the first failed probe; the per-kind limit held the lines before
    assert during[-1]["held_back"] == PER_SECOND * (outage_s - noticed_after_s)
    assert "Unable" in during[1]["message"] or "fetch" in during[1]["message"]  # the last held
    # After the outage, each kind shows at once again, once; also after an outage shorter
    # than the limit of one line of a kind a minute.
    kinds = [name for name, _, _ in RETRY_LINES]
    retrying(clock, 2)
    shown = len(read(out))
    assert [line["logger"] for line in read(out)[len(before) + len(during) :]] == kinds
    watch.failed("KafkaError: Unable to get cluster metadata", now=clock.now)
    retrying(clock, 10, watch)
    watch.answered(clock.now)
    retrying(clock, 2)
    short = read(out)[shown:]
    assert [line.get("event") for line in short[:2]] == ["broker_unreachable", "broker_reachable"]
    assert [line["logger"] for line in short[2:]] == kinds


def test_a_client_line_repeating_while_the_broker_answers_shows_once_a_minute_with_a_count(
    worker_logging: tuple[io.StringIO, ClientLines, Clock],
) -> None:
    out, _, clock = worker_logging
    complaint = logging.getLogger("aiokafka.consumer.fetcher")
    for _ in range(int(REPEAT_EVERY_S) * 3):
        complaint.warning("Unexpected error in fetcher routine: %s", "x")
        clock.now += 1
    shown = read(out)
    assert len(shown) == 3
    assert "held_back" not in shown[0]
    assert [line["held_back"] for line in shown[1:]] == [int(REPEAT_EVERY_S) - 1] * 2


def test_other_loggers_and_the_clients_info_lines_are_left_alone(
    worker_logging: tuple[io.StringIO, ClientLines, Clock],
) -> None:
    out, lines, _ = worker_logging
    lines.broker_down()
    for _ in range(5):
        logging.getLogger("aiokafka.consumer.group_coordinator").info("Joined group")
        logging.getLogger("aiokafkaesque").error("not the client")
        logging.getLogger("faust.transport").error("not the client either")
    assert len(read(out)) == 15


def test_at_debug_every_client_line_shows() -> None:
    config = logs.logging_config(logs.LogSettings("json", "debug"), secrets=())
    assert "filters" not in config["handlers"]["default"]
    config = logs.logging_config(logs.LogSettings("json", "info"), secrets=())
    assert config["handlers"]["default"]["filters"] == ["client_lines"]


def test_a_no_provider_terminal_is_no_error_line(
    worker_logging: tuple[io.StringIO, ClientLines, Clock],
) -> None:
    out, _, _ = worker_logging
    event = {"article_id": "a-1", "stage": "enrichment", "kind": "terminal", "detail": None}
    logs.log_compensation({**event, "reason": "no_provider"})
    assert read(out) == []  # at info: counted in /metrics, said once at start
    logs.log_compensation({**event, "reason": "primary_and_fallback_failed"})
    ((line),) = read(out)
    assert (line["level"], line["reason"]) == ("error", "primary_and_fallback_failed")


def test_a_call_without_a_provider_is_said_once_naming_what_follows() -> None:
    assert logs.without_providers(None) == (
        "no provider for article_content_hygiene, article_sentiment_tags: hygiene takes the "
        "deterministic path; every enrichment ends no_provider (counted in /metrics, not "
        "logged per article)"
    )
    spec = {"base_url": "https://x.test/v1", "model": "gpt-4.1-mini", "api_key_env": "K"}
    hygiene_only = parse_providers(
        {
            "article_content_hygiene": {
                "runtime_primary": spec,
                "runtime_fallback": spec | {"model": "gpt-4o-mini"},
            }
        },
        environ={"K": "k"},
    )
    said = logs.without_providers(hygiene_only)
    assert said is not None and said.startswith("no provider for article_sentiment_tags:")
    assert "deterministic" not in said
    both = parse_providers(
        {call: {"runtime_primary": spec, "runtime_fallback": spec | {"model": "gpt-4o-mini"}}
         for call in ("article_content_hygiene", "article_sentiment_tags")},
        environ={"K": "k"},
    )  # fmt: skip
    assert logs.without_providers(both) is None


def test_a_probe_failing_while_the_worker_starts_is_no_outage(
    worker_logging: tuple[io.StringIO, ClientLines, Clock],
) -> None:
    out, lines, clock = worker_logging
    watch = BrokerWatch(client_lines=lines)
    watch.probing(clock.now)
    watch.failed("producer not started", now=clock.now + 2)
    watch.answered(clock.now + 4)
    assert read(out) == []
    never = BrokerWatch(client_lines=lines)
    never.probing(clock.now)
    never.failed("producer not started", now=clock.now + START_GRACE_S + 1)
    assert [line.get("event") for line in read(out)] == ["broker_unreachable"]
