"""Writer schemas by registry ID: cached for good, fetched once, never on a worker's event loop.

A registry ID names one schema forever, so a schema fetched is kept. A command reads with
``blocking=True`` (it waits for the registry, as it waits for the broker). A worker reads with
``blocking=False``: an ID it has not cached is fetched in a thread, and meanwhile its
partition waits (``article_runtime.streams.kafka.unknown_writers``), as at a writer fingerprint it
does not know; once fetched the partition is read again. An ID the registry cannot serve (it is
away, or has no such ID) is asked again at most every ``retry_s``.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable

from fastavro.schema import parse_schema
from fastavro.types import Schema

from article_runtime.streams.kafka.registry import RegistryClient, RegistryError

RETRY_S = 5.0
_log = logging.getLogger(__name__)


class RegistrySchemas:
    def __init__(
        self,
        client: RegistryClient,
        *,
        blocking: bool,
        retry_s: float = RETRY_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client, self.blocking, self.retry_s, self.clock = client, blocking, retry_s, clock
        self._schemas: dict[int, Schema] = {}
        self._failed: dict[int, float] = {}  # ID -> when its last fetch failed
        self._fetching: set[int] = set()
        self._lock = threading.Lock()

    def add(self, schema_id: int, schema: Schema) -> None:
        """A schema whose ID is known already (registered or looked up at start)."""
        self._schemas[schema_id] = schema

    def cached(self, schema_id: int) -> Schema | None:
        return self._schemas.get(schema_id)

    def get(self, schema_id: int) -> Schema | None:
        """The writer schema of ``schema_id``; None while it is unknown (not yet fetched, or
        the registry cannot serve it). Blocking: fetched now; else fetched in a thread."""
        found = self._schemas.get(schema_id)
        if found is not None:
            return found
        if self.blocking:
            self._fetch(schema_id)
        else:
            self.request(schema_id)
        return self._schemas.get(schema_id)

    def request(self, schema_id: int) -> None:
        """Fetch ``schema_id`` in a thread unless cached, in flight, or failed just now."""
        with self._lock:
            if schema_id in self._schemas or schema_id in self._fetching:
                return
            failed = self._failed.get(schema_id)
            if failed is not None and self.clock() - failed < self.retry_s:
                return
            self._fetching.add(schema_id)
        threading.Thread(
            target=self._fetch, args=(schema_id,), name=f"registry-schema-{schema_id}", daemon=True
        ).start()

    def _fetch(self, schema_id: int) -> None:
        try:
            text = self.client.schema_by_id(schema_id)
            schema = parse_schema(json.loads(text), named_schemas={})
        except (RegistryError, ValueError, TypeError, KeyError) as error:
            # fastavro raises SchemaParseException (a ValueError) or KeyError on a bad schema.
            _log.warning(
                "schema %d could not be had from the registry: %s",
                schema_id,
                error,
                extra={"event": "registry_schema_unavailable", "schema_id": schema_id},
            )
            with self._lock:
                self._failed[schema_id] = self.clock()
                self._fetching.discard(schema_id)
            return
        with self._lock:
            self._schemas[schema_id] = schema
            self._failed.pop(schema_id, None)
            self._fetching.discard(schema_id)
