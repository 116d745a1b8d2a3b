"""One call through ``ProviderClient`` against the scripted server: every way it can end has
its category, whatever label the HTTP transport gives the failure.

The client sends through the SDK's aiohttp transport, which reports a server that closed the
connection, or refused it, as a connect *timeout*; the policy retries timeouts and connection
errors alike, but traces, counters and compensation reasons must say which it was.
"""

from __future__ import annotations

import asyncio
import socket

import pytest

from article_runtime.llm.client import Completion, ProviderClient, ProviderFailure
from article_runtime.llm.providers import ProviderSpec
from tests.support.openai_server import (
    Action,
    Delay,
    Drop,
    Reply,
    ScriptedOpenAIServer,
    Status,
    Trickle,
)

MODEL = "scripted-model"
MESSAGES = [{"role": "system", "content": "rules"}, {"role": "user", "content": "data"}]
Outcome = str | None  # None: an answer
DEADLINE_S = 2.0


def spec(base_url: str, timeout_s: float) -> ProviderSpec:
    return ProviderSpec(base_url=base_url, model=MODEL, api_key_env="UNUSED", timeout_s=timeout_s)


async def outcome_of(client: ProviderClient) -> tuple[Outcome, str]:
    try:
        completion: Completion = await client.complete(MESSAGES, schema_name="s", schema={})
    except ProviderFailure as failure:
        return failure.outcome, str(failure)
    return None, completion.content


def in_turn(base_url: str, n: int, timeout_s: float = DEADLINE_S) -> list[tuple[Outcome, str]]:
    """``n`` calls one after another on one client (one event loop, reused connections)."""

    async def go() -> list[tuple[Outcome, str]]:
        client = ProviderClient(spec(base_url, timeout_s), api_key="sk-test")
        try:
            return [await outcome_of(client) for _ in range(n)]
        finally:
            await client.aclose()

    return asyncio.run(go())


@pytest.mark.parametrize(
    ("failure", "outcome"),
    [
        (Drop(), "connection_error"),
        (Status(408), "timeout"),
        (Status(429, headers={"Retry-After": "0"}), "rate_limited"),
        (Status(400), "client_error"),
        (Status(500), "server_error"),
        (Delay(20.0, then=Reply("late")), "timeout"),
        (Trickle(0.05, Reply("x" * 400)), "timeout"),
    ],
)
def test_each_failure_has_its_category_and_the_client_serves_on(
    server: ScriptedOpenAIServer, failure: Action, outcome: str
) -> None:
    server.script(MODEL, Reply("before"), failure, Reply("after"))
    # A deadline no answer misses on a loaded machine (0.5 s did once, in the whole suite),
    # far below the delay and the trickle's ~20 s.
    results = in_turn(server.base_url, 3, timeout_s=DEADLINE_S)
    assert [o for o, _ in results] == [None, outcome, None]
    assert (results[0][1], results[2][1]) == ("before", "after")


def test_a_dropped_connection_is_not_a_timeout_on_a_fresh_or_reused_connection(
    server: ScriptedOpenAIServer,
) -> None:
    server.script(MODEL, Drop(), Reply("back"), Drop(), Drop(), Reply("again"))
    results = in_turn(server.base_url, 5)
    assert [o for o, _ in results] == [
        "connection_error",
        None,
        "connection_error",  # on the connection the answer before came over
        "connection_error",
        None,
    ]
    # The detail names what the socket saw, not the transport's relabelling.
    assert all("Timeout" not in detail for o, detail in results if o is not None)


def test_a_refused_connection_is_a_connection_error() -> None:
    with socket.socket() as probe:  # a port nobody listens on once this closes
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    [(outcome, detail)] = in_turn(f"http://127.0.0.1:{port}/v1", 1)
    assert outcome == "connection_error"
    assert "Refused" in detail
