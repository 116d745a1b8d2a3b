"""Faust tables as the agents use them, and one that can wait for a change to be durable.

A table change goes to its changelog through the producer's buffer (``send_soon``); Faust
offers no way to wait for one change. The enrichment agent must know its stored model result
is on the broker before it produces the output that depends on it, so ``ConfirmedTable`` keeps
the delivery future of each key's latest change.
"""

from __future__ import annotations

from typing import Any, cast

import faust
from faust.types import FutureMessage
from faust.types.tables import TableT

from streams.topics import PARTITIONS


class ConfirmedTable(faust.Table):  # type: ignore[type-arg]
    def __post_init__(self) -> None:
        super().__post_init__()
        self._latest: dict[Any, FutureMessage] = {}

    def send_changelog(self, *args: Any, **kwargs: Any) -> FutureMessage:
        fut = super().send_changelog(*args, **kwargs)
        key = args[1] if len(args) > 1 else kwargs["key"]
        self._latest[key] = fut
        fut.add_done_callback(lambda done: self._forget(key, done))
        return fut

    def _forget(self, key: Any, done: FutureMessage) -> None:
        if self._latest.get(key) is done:
            del self._latest[key]

    async def confirmed(self, key: Any) -> None:
        """Return once the latest change of ``key`` is acknowledged by the broker."""
        pending = self._latest.get(key)
        if pending is not None:
            await pending


def table(app: faust.App, name: str, kind: type[faust.Table] = faust.Table) -> TableT[str, Any]:  # type: ignore[type-arg]  # faust.Table's parameters are not public
    """A table co-partitioned with the topics (its changelog follows the source partition),
    string keys, JSON values that agents reassign whole on every change."""
    made = kind(
        app, name=name, default=None, beacon=app.tables.beacon, partitions=PARTITIONS, key_type=str
    )
    app.tables.add(made)
    return cast(TableT[str, Any], made)
