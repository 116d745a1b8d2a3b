"""``bench.provider_transport``: every pair of transport and event loop runs all its calls
against the scripted server, on the loop it names, so no figure is of calls that failed."""

from __future__ import annotations

import math

from article_runtime.streams.service.event_loop import EVENT_LOOPS
from bench.provider_transport import ANSWER, MODEL, TRANSPORTS, WARMUP, measure
from tests.support.openai_server import running_server


def test_each_transport_and_loop_makes_every_call() -> None:
    with running_server(repeat_last=True) as server:
        server.script(MODEL, ANSWER)
        figures = measure(server.base_url, 20, rounds=1)
        served = len(server.calls_for(MODEL))
    assert set(figures) == {(t, loop) for t in TRANSPORTS for loop in EVENT_LOOPS}
    for pair, per_round in figures.items():
        assert len(per_round) == 1 and math.isfinite(per_round[0]) and per_round[0] > 0, pair
    assert served == len(figures) * (WARMUP + 20)
    assert server.unscripted == []
