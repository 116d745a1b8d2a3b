"""The codec a deployment's settings ask for, and our schemas' subjects in the registry.

Each topic's value schema is the subject ``<topic>-value`` (TopicNameStrategy). A subject the
registry does not have yet is given every schema of the record, oldest first (the history
schemas, then the current one), so it holds the evolution other readers resolve against; a
subject that exists is given only what it lacks of the current schema. Every schema is checked
against the subject's compatibility setting first (the registry's compatibility endpoint), so
a refused schema stops a worker at start with the registry's own words (``SchemaRefused``),
never at its first record.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Mapping

from fastavro.schema import parse_schema

from article_runtime.errors import ContractError
from article_runtime.streams.kafka.codec import AvroCodec
from article_runtime.streams.kafka.registry import RegistryClient, RegistrySettings, subject_of
from article_runtime.streams.kafka.registry_schemas import RegistrySchemas
from article_runtime.streams.kafka.topics import TOPICS

_log = logging.getLogger(__name__)


class SchemaRefused(ContractError):
    """The registry would not take one of our schemas under its subject."""


class Subjects:
    """Our schemas' IDs in the registry, registered the first time each is asked for."""

    def __init__(self, client: RegistryClient, codec: AvroCodec, schemas: RegistrySchemas) -> None:
        self.client, self.codec, self.schemas = client, codec, schemas
        self._ids: dict[str, int] = {}
        self._lock = threading.Lock()

    def id_of(self, schema_name: str) -> int:
        """The registry ID of the current ``schema_name`` schema, registered if need be.

        Raises:
            SchemaRefused: the subject's compatibility setting refuses it.
            RegistryError: the registry could not be asked.
        """
        found = self._ids.get(schema_name)
        if found is not None:
            return found
        with self._lock:
            if schema_name not in self._ids:
                self._ids[schema_name] = self._register(schema_name)
            return self._ids[schema_name]

    def register_all(self) -> dict[str, int]:
        """Every topic's subject, now: a worker's start (``SchemaRefused`` stops it)."""
        return {topic.name: self.id_of(topic.schema) for topic in TOPICS}

    def _register(self, schema_name: str) -> int:
        # Every topic of the record has its subject (a repartition topic carries its source's
        # schema); the registry gives one schema text one ID, whatever the subject.
        subjects = [subject_of(topic.name) for topic in TOPICS if topic.schema == schema_name]
        if not subjects:
            raise KeyError(f"no topic has the schema {schema_name}")
        ids = {self._register_under(subject, schema_name) for subject in subjects}
        if len(ids) != 1:
            raise SchemaRefused(
                f"the schema registry gives {schema_name} the IDs {sorted(ids)} under "
                f"{', '.join(subjects)}: one schema text must have one ID"
            )
        (current_id,) = ids
        self.schemas.add(current_id, self.codec.schema(schema_name))
        return current_id

    def _register_under(self, subject: str, schema_name: str) -> int:
        *history, current = self.codec.versions[schema_name]
        current_id = self.client.lookup(subject, current)
        if current_id is None:
            known = [self.client.lookup(subject, text) for text in history]
            # A new subject gets the history first; one that has versions gets only what it lacks
            # of the current schema (an old schema appended after newer ones would become latest).
            fresh = all(found is None for found in known) and not self.client.has_versions(subject)
            for text in history if fresh else []:
                self._add(subject, text)
            current_id = self._add(subject, current)
        return current_id

    def _add(self, subject: str, text: str) -> int:
        refused = self.client.incompatibility(subject, text)
        if refused is not None:
            name = json.loads(text)["name"]
            raise SchemaRefused(
                f"the schema registry refuses {name} under {subject}: {refused} (its "
                "compatibility setting; a schema change must keep records readable)"
            )
        schema_id = self.client.register(subject, text)
        self.schemas.add(schema_id, parse_schema(json.loads(text), named_schemas={}))
        _log.info(
            "registered %s under %s as schema %d",
            json.loads(text)["name"],
            subject,
            schema_id,
            extra={"event": "schema_registered", "subject": subject, "schema_id": schema_id},
        )
        return schema_id


def registry_codec(settings: RegistrySettings, *, blocking: bool) -> tuple[AvroCodec, Subjects]:
    """A codec reading both framings with ``settings``' registry, writing the format they
    name. ``blocking``: whether reading an uncached ID waits for the registry (commands) or
    fetches it in a thread (a worker, whose partition waits meanwhile)."""
    client = RegistryClient(settings)
    schemas = RegistrySchemas(client, blocking=blocking)
    codec = AvroCodec(registry=schemas)
    subjects = Subjects(client, codec, schemas)
    if settings.writes_registry_format:
        codec.write_id = subjects.id_of
    return codec, subjects


def codec_from_env(environ: Mapping[str, str] | None = None) -> AvroCodec:
    """The codec a command uses (``ARTICLE_RUNTIME_VALUE_FORMAT``, ``…_SCHEMA_REGISTRY_URL``):
    without a registry, single-object; with one, a registry ID is fetched when first read.

    Raises:
        RegistrySettingError: a registry setting is malformed.
    """
    settings = RegistrySettings.from_env(os.environ if environ is None else environ)
    if settings is None:
        return AvroCodec()
    return registry_codec(settings, blocking=True)[0]
