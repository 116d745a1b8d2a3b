"""When the broker last answered the worker's own probe: what readiness is decided from.

Apart from ``streams.service.health`` (the probes and their views) so the wiring can hold one
without importing the views that read it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

_log = logging.getLogger("streams.service.health")


@dataclass
class BrokerWatch:
    """When the broker last answered, and the last error since (times are monotonic). The
    silence counts from the first probe: before it the app is still starting (and not ready
    for other reasons)."""

    started: float | None = None
    last_ok: float | None = None
    last_error: str | None = None

    def probing(self, now: float) -> None:
        if self.started is None:
            self.started = now

    def answered(self, now: float) -> None:
        if self.last_error is not None and self.last_ok is not None:
            _log.info("broker reachable again after %.0f s", now - self.last_ok)
        self.last_ok, self.last_error = now, None

    def failed(self, error: str) -> None:
        if self.last_error is None:
            _log.warning("broker probe failed: %s", error)
        self.last_error = error

    def silent_s(self, now: float) -> float:
        """Seconds since the broker last answered (since the first probe when it never did)."""
        since = self.last_ok if self.last_ok is not None else self.started
        return 0.0 if since is None else now - since
