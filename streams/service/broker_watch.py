"""When the broker last answered the worker's own probe: what readiness is decided from, and
what the log says about the broker.

Apart from ``article_runtime.streams.service.health`` (the probes and their views) so the wiring can
hold one without importing the views that read it.

The log says it once per change: one WARNING when the probe first fails, a reminder every
``REMIND_EVERY_S`` while it keeps failing, one INFO line when it answers again. Meanwhile the
Kafka client's own lines (one per retry: about 74 a second) are held back
(``article_runtime.streams.service.client_logs``), and these lines count them and quote the last
one.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

from article_runtime.streams.service.client_logs import ClientLines, shared

_log = logging.getLogger("article_runtime.streams.service.health")
REMIND_EVERY_S = 60.0
# Before the broker first answered, a failed probe is the worker still starting (its producer
# not up yet) unless it lasts this long: the start itself was checked against the cluster.
START_GRACE_S = 30.0


@dataclass
class BrokerWatch:
    """When the broker last answered, and the last error since (times are monotonic). The
    silence counts from the first probe: before it the app is still starting (and not ready
    for other reasons)."""

    started: float | None = None
    last_ok: float | None = None
    last_error: str | None = None
    down_since: float | None = None  # the first failed probe after an answer (or the start)
    reminded: float | None = None
    client_lines: ClientLines = field(default_factory=shared, repr=False)

    def probing(self, now: float) -> None:
        if self.started is None:
            self.started = now

    def answered(self, now: float) -> None:
        if self.down_since is not None:
            held = self.client_lines.broker_up()
            since = self.last_ok if self.last_ok is not None else self.down_since
            _log.info(
                "broker reachable again after %.0f s (%d Kafka client lines held back)",
                now - since,
                held,
                extra={"event": "broker_reachable", "held_back": held},
            )
        self.last_ok, self.last_error = now, None
        self.down_since = self.reminded = None

    def failed(self, error: str, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        self.last_error = error
        starting = self.last_ok is None and now - (self.started or now) < START_GRACE_S
        if self.down_since is None and starting:
            return
        if self.down_since is None:
            self.down_since = self.reminded = now
            self.client_lines.broker_down()
            _log.warning(
                "broker unreachable: %s (the Kafka client's own lines are held back until it "
                "answers; a reminder every %.0f s)",
                error,
                REMIND_EVERY_S,
                extra={"event": "broker_unreachable"},
            )
            return
        if self.reminded is not None and now - self.reminded >= REMIND_EVERY_S:
            self.reminded = now
            held, last = self.client_lines.held_while_down()
            since = self.last_ok if self.last_ok is not None else self.down_since
            _log.warning(
                "broker still unreachable after %.0f s: %s (%d Kafka client lines held back; "
                "the last: %s)",
                now - since,
                error,
                held,
                last,
                extra={"event": "broker_unreachable", "held_back": held},
            )

    def silent_s(self, now: float) -> float:
        """Seconds since the broker last answered (since the first probe when it never did)."""
        since = self.last_ok if self.last_ok is not None else self.started
        return 0.0 if since is None else now - since
