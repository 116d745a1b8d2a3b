"""The Kafka client's own log lines, held down to what an operator can read.

aiokafka logs each failed connection, metadata refresh, fetch and heartbeat at ERROR, every
time it retries: with the broker down, a worker wrote about 74 lines a second. The broker's
state is the broker watch's to say (``article_runtime.streams.service.broker_watch``: one line when
the probe first fails, a reminder every minute, one line when it answers again). Here, on the
worker's log handler:

- while the watch holds the broker unreachable, the client's WARNING and ERROR lines are held
  back and counted; the watch's lines give the count and the last one held (its cause);
- otherwise each kind of client line (logger and message template) shows at most once a
  minute, the next one carrying ``held_back``: how many like it were left out since.

INFO and DEBUG lines pass (they are not repeated per retry), and at ``debug`` level the
filter is not installed at all (``article_runtime.streams.service.logs.logging_config``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable

CLIENT_LOGGERS = ("aiokafka",)  # and every logger under it
REPEAT_EVERY_S = 60.0  # one line of a kind per this long while the broker answers


def is_client(name: str) -> bool:
    return any(name == root or name.startswith(f"{root}.") for root in CLIENT_LOGGERS)


class ClientLines(logging.Filter):
    """A log filter shared by the handler and the broker watch. Thread-safe: aiokafka logs
    from the consumer's own thread too."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.clock = clock
        self._lock = threading.Lock()
        self._down = False
        self._shown: dict[tuple[str, object], float] = {}  # kind of line -> last shown
        self._held: Counter[tuple[str, object]] = Counter()  # per kind, since last shown
        self._held_down = 0  # held while the broker is down
        self._last_held: logging.LogRecord | None = None

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING or not is_client(record.name):
            return True
        kind = (record.name, record.msg)  # the template: one kind whatever its arguments
        with self._lock:
            if self._down:
                self._held_down += 1
                self._last_held = record
                return False
            now = self.clock()
            shown = self._shown.get(kind)
            if shown is not None and now - shown < REPEAT_EVERY_S:
                self._held[kind] += 1
                return False
            self._shown[kind] = now
            held = self._held.pop(kind, 0)
        if held:
            record.held_back = held
        return True

    def broker_down(self) -> None:
        """The watch holds the broker unreachable: hold every client line from now on."""
        with self._lock:
            self._down, self._held_down, self._last_held = True, 0, None

    def broker_up(self) -> int:
        """The broker answers again: client lines show again (the first of each kind at
        once). Returns how many were held while it was down."""
        with self._lock:
            held, self._down = self._held_down, False
            self._held_down, self._last_held = 0, None
            self._shown.clear()
            self._held.clear()
        return held

    def held_while_down(self) -> tuple[int, str | None]:
        """Lines held since the broker went down, and the last one's message."""
        with self._lock:
            record = self._last_held
            return self._held_down, None if record is None else record.getMessage()[:300]


CLIENT_LINES = ClientLines()  # the worker's: its log handler's filter and its broker watch's


def shared() -> ClientLines:
    """``CLIENT_LINES``, as ``logging.config.dictConfig`` makes a filter (``"()"``)."""
    return CLIENT_LINES
