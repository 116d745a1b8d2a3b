"""Health that tells the truth: liveness and readiness on the worker's web port.

- ``/health/live/``: the event loop answers (the web server runs on it). Always 200 while it
  does; a blocked loop answers nothing and the probe times out.
- ``/health/ready/``: 200 only when the worker is connected to the broker, owns a settled
  assignment (no rebalance in progress, the flow running) and its tables have recovered;
  else 503 with every reason that holds. Readiness comes back by itself when they do.

Connected to the broker means: the worker's own producer client got cluster metadata from a
broker within the last ``UNREACHABLE_AFTER_S`` seconds. A probe asks every ``PROBE_EVERY_S``
and gives up after ``PROBE_TIMEOUT_S``, so an unreachable broker fails readiness within
``UNREACHABLE_AFTER_S`` (about 10 s) of its last answer, whatever the cause (down, network,
credentials), and even if the probe itself were stuck.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any, cast

from faust.tables.manager import TableManager
from faust.web import Request, Response, View

from article_runtime.streams.service.broker_watch import BrokerWatch

if TYPE_CHECKING:
    from article_runtime.streams.service.wiring import Wiring

_log = logging.getLogger(__name__)
PROBE_EVERY_S = 2.0
PROBE_TIMEOUT_S = 5.0
UNREACHABLE_AFTER_S = PROBE_EVERY_S + PROBE_TIMEOUT_S + 3.0


def not_ready(
    *,
    broker_silent_s: float,
    broker_error: str | None,
    rebalancing: bool,
    recovered: bool,
    flowing: bool,
    unreachable_after_s: float = UNREACHABLE_AFTER_S,
) -> list[str]:
    """Why the worker is not ready (empty: ready), each reason a short sentence."""
    reasons = []
    if broker_silent_s > unreachable_after_s:
        cause = f" ({broker_error})" if broker_error else ""
        reasons.append(f"broker_unreachable: no answer for {broker_silent_s:.0f} s{cause}")
    if rebalancing:
        reasons.append("rebalancing: the assignment is changing")
    if not recovered:
        reasons.append("recovering: tables are being read back from their changelogs")
    elif not rebalancing and not flowing:
        reasons.append("flow_stopped: the assignment's messages are not being processed")
    return reasons


def reasons_now(w: Wiring) -> list[str]:
    app = w.app
    now = time.monotonic()
    return not_ready(
        broker_silent_s=w.broker.silent_s(now),
        broker_error=w.broker.last_error,
        rebalancing=bool(app.rebalancing),
        recovered=cast(TableManager, app.tables).recovery.completed.is_set(),
        flowing=w.work.flowing,
    )


async def probe(app: Any, watch: BrokerWatch) -> None:
    """Ask a broker for cluster metadata with the producer's own client; never raises."""
    watch.probing(time.monotonic())
    producer = getattr(app.producer, "_producer", None)  # aiokafka's, once Faust started it
    if producer is None:
        watch.failed("producer not started")
        return
    try:
        await asyncio.wait_for(producer.client.fetch_all_metadata(), PROBE_TIMEOUT_S)
    except TimeoutError:
        watch.failed(f"no metadata within {PROBE_TIMEOUT_S:.0f} s")
    except Exception as exc:  # KafkaError and whatever the client raises: not ready, say why
        watch.failed(f"{type(exc).__name__}: {exc}"[:200])
    else:
        watch.answered(time.monotonic())


def register(w: Wiring) -> None:
    app = w.app

    async def probe_broker() -> None:
        await probe(app, w.broker)

    app.timer(PROBE_EVERY_S)(probe_broker)  # Faust's timer decorator is untyped

    @app.page("/health/live/")
    async def live(web: View, request: Request) -> Response:
        return web.json({"status": "alive"})

    @app.page("/health/ready/")
    async def ready(web: View, request: Request) -> Response:
        reasons = reasons_now(w)
        body = {"ready": not reasons, "reasons": reasons, "app": app.conf.id}
        return web.json(body, status=503 if reasons else 200)
