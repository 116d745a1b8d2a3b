"""``translate_errors`` names a failed connection by what ended it, not by the SDK's label.

The SDK wraps whatever its transport raised in ``APIConnectionError`` or its subclass
``APITimeoutError``, and the transport chooses which: aiohttp's maps a closed or refused
connection to a connect timeout. Generated here: chains of causes as transports build them
(builtin, asyncio, aiohttp and httpx errors, timers and sockets alike), under either label.
"""

from __future__ import annotations

import asyncio

import aiohttp
import httpx2
import openai
import pytest
from hypothesis import given
from hypothesis import strategies as st

from article_runtime.llm.client import ProviderFailure, translate_errors

REQUEST = httpx2.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
TIMERS: list[type[BaseException]] = [
    TimeoutError,
    asyncio.TimeoutError,
    aiohttp.ServerTimeoutError,
    aiohttp.SocketTimeoutError,
    aiohttp.ConnectionTimeoutError,
]
OTHERS: list[type[BaseException]] = [
    ConnectionResetError,
    ConnectionRefusedError,
    BrokenPipeError,
    OSError,
    aiohttp.ServerDisconnectedError,
    aiohttp.ClientPayloadError,
    aiohttp.ClientOSError,
    httpx2.ConnectTimeout,  # the transport's label: not a timer
    httpx2.ReadError,
    ValueError,
]


def chained(kinds: list[type[BaseException]]) -> BaseException:
    """``kinds[0]`` raised from ``kinds[1]`` raised from ... (the last is what began it)."""
    cause: BaseException | None = None
    for kind in reversed(kinds):
        error = kind("request") if issubclass(kind, httpx2.HTTPError) else kind()
        error.__cause__ = cause
        cause = error
    assert cause is not None
    return cause


def translated(error: BaseException) -> ProviderFailure:
    with pytest.raises(ProviderFailure) as caught, translate_errors():
        raise error
    return caught.value


@given(
    chain=st.lists(st.sampled_from(TIMERS + OTHERS), min_size=1, max_size=4),
    label=st.sampled_from([openai.APIConnectionError, openai.APITimeoutError]),
)
def test_a_connection_error_is_a_timeout_exactly_when_a_timer_ended_it(
    chain: list[type[BaseException]], label: type[openai.APIConnectionError]
) -> None:
    wrapped = label(request=REQUEST)
    wrapped.__cause__ = chained(chain)
    failure = translated(wrapped)
    expected = "timeout" if any(k in TIMERS for k in chain) else "connection_error"
    assert failure.outcome == expected
    if expected == "connection_error":
        assert chain[-1].__name__ in str(failure)  # what began it, for the trace


def test_the_sdk_label_alone_is_not_a_timeout() -> None:
    # No cause at all: nothing says a timer fired (the client has no timeouts of its own).
    assert translated(openai.APITimeoutError(request=REQUEST)).outcome == "connection_error"
