"""The schema registry's wire format (00, schema ID, Avro body), its settings and subjects,
against the test registry (``tests.support.registry_server``), without a broker. On the real
broker with a worker: ``tests/integration/test_registry_format.py``."""

from __future__ import annotations

import io
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastavro import parse_schema, schemaless_reader, schemaless_writer
from faust.types import TP
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from article_runtime.resources import AVRO_DIR
from article_runtime.streams.commands.publish_inputs import ingested_record
from article_runtime.streams.kafka.codec import DECODE_REASONS, AvroCodec, DecodeError
from article_runtime.streams.kafka.registry import (
    REGISTRY_PASSWORD_ENV,
    REGISTRY_URL_ENV,
    REGISTRY_USERNAME_ENV,
    VALUE_FORMAT_ENV,
    RegistryClient,
    RegistryError,
    RegistrySettingError,
    RegistrySettings,
)
from article_runtime.streams.kafka.registry_codec import (
    SchemaRefused,
    Subjects,
    codec_from_env,
    registry_codec,
)
from article_runtime.streams.kafka.registry_schemas import RegistrySchemas
from article_runtime.streams.kafka.topics import ARTICLE_INGESTED, TOPICS
from article_runtime.streams.kafka.unknown_writers import UnknownWriters
from article_runtime.streams.service.settings import SettingsError, WorkerSettings
from tests.support import next_release
from tests.support.avro_data import datum, named_types
from tests.support.registry_server import RunningRegistry, running_registry

SECRET = "s3cr3t-registry-pass"
SOURCES = {
    json.loads(path.read_text("utf-8"))["name"]: json.loads(path.read_text("utf-8"))
    for path in AVRO_DIR.glob("*.avsc")
}


def _settings(url: str, **more: str) -> RegistrySettings:
    found = RegistrySettings.from_env(
        {REGISTRY_URL_ENV: url, VALUE_FORMAT_ENV: "schema-registry", **more}
    )
    assert found is not None
    return found


@pytest.fixture(scope="module")
def served() -> Iterator[RunningRegistry]:
    with running_registry() as registry:
        yield registry


@pytest.fixture(scope="module")
def writer(served: RunningRegistry) -> AvroCodec:
    codec, subjects = registry_codec(_settings(served.url), blocking=True)
    subjects.register_all()
    return codec


def _frame_of(data: bytes) -> tuple[int, bytes]:
    """The header as the registry's documentation defines it, read here on its own."""
    assert data[0] == 0
    return int.from_bytes(data[1:5], "big"), data[5:]


@st.composite
def topic_and_record(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    topic = draw(st.sampled_from(TOPICS))
    source = SOURCES[topic.schema]
    return topic.name, draw(datum(source, named_types(source)))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(topic_and_record())
def test_any_record_round_trips_and_a_registry_reader_reads_it(
    served: RunningRegistry, writer: AvroCodec, drawn: tuple[str, dict[str, Any]]
) -> None:
    topic_name, record = drawn
    topic = next(t for t in TOPICS if t.name == topic_name)
    data = writer.encode(topic.schema, record)
    schema_id, body = _frame_of(data)
    # the subject's newest version is the ID written (TopicNameStrategy)
    assert served.registry.subjects[f"{topic_name}-value"][-1] == schema_id
    held = parse_schema(json.loads(served.registry.schemas[schema_id - 1]), named_schemas={})
    stream = io.BytesIO(body)
    assert schemaless_reader(stream, held, None) == record
    assert stream.tell() == len(body)
    assert writer.decode(data, topic.schema) == record


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(topic_and_record(), st.data())
def test_every_cut_frame_is_a_categorical_error(
    writer: AvroCodec, drawn: tuple[str, dict[str, Any]], data: st.DataObject
) -> None:
    topic_name, record = drawn
    topic = next(t for t in TOPICS if t.name == topic_name)
    whole = writer.encode(topic.schema, record)
    cut = data.draw(st.integers(0, len(whole) - 1))
    with pytest.raises(DecodeError) as caught:
        writer.decode(whole[:cut], topic.schema)
    assert caught.value.reason in DECODE_REASONS
    if cut < 5:
        assert caught.value.reason == "not_registry_framed"


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64), st.sampled_from(TOPICS))
def test_garbage_never_crashes_the_reader(writer: AvroCodec, garbage: bytes, topic: Any) -> None:
    try:
        writer.decode(garbage, topic.schema)
    except DecodeError as error:
        assert error.reason in DECODE_REASONS


@given(st.binary(max_size=64).filter(lambda b: b[:1] != b"\x00" and b[:2] != b"\xc3\x01"))
def test_neither_framing_is_not_registry_framed(writer: AvroCodec, garbage: bytes) -> None:
    with pytest.raises(DecodeError) as caught:
        writer.decode(garbage, "ArticleIngested")
    assert caught.value.reason == "not_registry_framed"


def test_a_reader_without_a_registry_names_the_format_it_cannot_read(writer: AvroCodec) -> None:
    data = writer.encode("ArticleIngested", ingested_record("a-1", "https://x.test/1", b"<p>x</p>"))
    with pytest.raises(DecodeError) as caught:
        AvroCodec().decode(data, "ArticleIngested")
    assert caught.value.reason == "not_single_object_encoded"
    assert "registry" in caught.value.detail


def test_a_registry_reader_reads_single_object_values_too(writer: AvroCodec) -> None:
    """A topic moved to the registry format still holds the single-object records before."""
    record = ingested_record("a-2", "https://x.test/2", b"<p>y</p>")
    assert writer.decode(AvroCodec().encode("ArticleIngested", record), "ArticleIngested") == (
        AvroCodec().decode(AvroCodec().encode("ArticleIngested", record), "ArticleIngested")
    )


def test_an_id_the_registry_does_not_have(served: RunningRegistry, writer: AvroCodec) -> None:
    missing = len(served.registry.schemas) + 1000
    value = b"\x00" + missing.to_bytes(4, "big") + b"\x02"
    with pytest.raises(DecodeError) as caught:
        writer.decode(value, "ArticleIngested")
    assert caught.value.reason == "unknown_schema_id"


def test_subjects_get_the_history_oldest_first_then_the_current(
    served: RunningRegistry, writer: AvroCodec
) -> None:
    for topic in TOPICS:
        ids = served.registry.subjects[f"{topic.name}-value"]
        history = sorted(
            AVRO_DIR.glob(f"history/{topic.schema}.v*.avsc"),
            key=lambda p: int(p.stem.rpartition(".v")[2]),
        )
        expected = [*history, AVRO_DIR / f"{topic.schema}.avsc"]
        held = [json.loads(served.registry.schemas[i - 1]) for i in ids]
        assert held == [json.loads(p.read_text("utf-8")) for p in expected], topic.name


def test_registering_again_adds_nothing_and_writes_the_same_ids(
    served: RunningRegistry, writer: AvroCodec
) -> None:
    before = {s: list(v) for s, v in served.registry.subjects.items()}
    _, subjects = registry_codec(_settings(served.url), blocking=True)
    ids = subjects.register_all()
    assert served.registry.subjects == before
    assert ids == {t.name: before[f"{t.name}-value"][-1] for t in TOPICS}


def test_an_existing_subject_gets_only_the_current_schema() -> None:
    with running_registry() as fresh:
        old = (AVRO_DIR / "history" / "ArticleIngested.v1.avsc").read_text("utf-8")
        fresh.registry.register("article.ingested-value", old)
        _, subjects = registry_codec(_settings(fresh.url), blocking=True)
        subjects.id_of("ArticleIngested")
        ids = fresh.registry.subjects["article.ingested-value"]
        assert len(ids) == 2
        assert json.loads(fresh.registry.schemas[ids[-1] - 1]) == SOURCES["ArticleIngested"]


def test_a_schema_the_registry_refuses_stops_registration() -> None:
    """Another team's schema under our subject: ours cannot read its records (BACKWARD)."""
    theirs = {"type": "record", "name": "ArticleIngested", "fields": [{"name": "n", "type": "int"}]}
    with running_registry() as fresh:
        fresh.registry.register("article.ingested-value", json.dumps(theirs))
        _, subjects = registry_codec(_settings(fresh.url), blocking=True)
        with pytest.raises(SchemaRefused) as caught:
            subjects.register_all()
        assert "article.ingested-value" in str(caught.value)
        assert "without a default" in str(caught.value)  # the registry's own reason
        assert fresh.registry.subjects["article.ingested-value"] == [1]  # nothing registered


def test_a_worker_never_waits_for_an_unknown_id_and_reads_it_once_fetched(
    tmp_path: Path,
) -> None:
    """A newer release registered a schema this one does not ship: its record holds the
    partition until the ID is fetched (in a thread), then reads with the current schema."""
    with running_registry() as fresh:
        newer_dir = next_release.schemas(tmp_path)
        newer_settings = _settings(fresh.url)
        client = RegistryClient(newer_settings)
        schemas = RegistrySchemas(client, blocking=True)
        newer = AvroCodec(newer_dir, registry=schemas)
        newer.write_id = Subjects(client, newer, schemas).id_of
        record = {**ingested_record("a-3", "https://x.test/3", b"<p>z</p>"), "crawl_note": "n"}
        value = newer.encode(ARTICLE_INGESTED.schema, record)
        schema_id, _ = _frame_of(value)

        worker, _ = registry_codec(newer_settings, blocking=False)
        held = UnknownWriters(worker.unknown_writer, 600.0, known=worker.writer_known)
        tp = TP(ARTICLE_INGESTED.name, 0)
        assert held.holds(tp, 7, value)  # not fetched yet: the partition waits
        deadline = time.monotonic() + 10
        while not held.due() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert held.due() == {tp: 7}  # fetched: read again at once, long before the wait ends
        held.release(tp)
        assert not held.holds(tp, 7, value)
        decoded = worker.decode(value, ARTICLE_INGESTED.schema)
        assert "crawl_note" not in decoded and decoded["article_id"] == "a-3"
        assert fresh.calls.count(("GET", f"/schemas/ids/{schema_id}")) == 1  # cached


def test_an_id_the_registry_cannot_serve_keeps_the_partition_waiting() -> None:
    with running_registry() as fresh:
        worker, _ = registry_codec(_settings(fresh.url), blocking=False)
        assert worker.registry is not None
        worker.registry.retry_s = 0.0
        held = UnknownWriters(worker.unknown_writer, 600.0, known=worker.writer_known)
        tp = TP(ARTICLE_INGESTED.name, 1)
        value = b"\x00\x00\x00\x30\x39" + b"\x02"
        assert held.holds(tp, 3, value)
        time.sleep(0.5)
        assert held.due() == {}  # still not served: no record is dropped
        assert held.holds(tp, 4, b"anything after it")
        assert ("GET", "/schemas/ids/12345") in fresh.calls


def test_the_unknown_writers_wait_still_ends() -> None:
    now = [0.0]
    held = UnknownWriters(lambda v: v[:5] or None, 60.0, lambda: now[0], known=lambda _: False)
    tp = TP(ARTICLE_INGESTED.name, 2)
    assert held.holds(tp, 1, b"\x00\x00\x00\x00\x09")
    assert held.due() == {}
    now[0] = 61.0
    assert held.due() == {tp: 1}


# -- settings -----------------------------------------------------------------------------------


def test_without_a_registry_url_values_stay_single_object() -> None:
    assert RegistrySettings.from_env({}) is None
    assert WorkerSettings.from_env({"KAFKA_BOOTSTRAP_SERVERS": "k:9092"}).registry is None
    assert codec_from_env({}).write_id is None


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({VALUE_FORMAT_ENV: "schema-registry"}, REGISTRY_URL_ENV),
        ({VALUE_FORMAT_ENV: "confluent"}, VALUE_FORMAT_ENV),
        ({REGISTRY_URL_ENV: "registry:8081"}, REGISTRY_URL_ENV),
        ({REGISTRY_URL_ENV: f"http://u:{SECRET}@r:8081"}, REGISTRY_USERNAME_ENV),
        ({REGISTRY_URL_ENV: "http://r:8081", REGISTRY_USERNAME_ENV: "u"}, REGISTRY_PASSWORD_ENV),
    ],
)
def test_malformed_settings_are_refused_by_name(env: dict[str, str], named: str) -> None:
    with pytest.raises(RegistrySettingError, match=named) as caught:
        RegistrySettings.from_env(env)
    assert SECRET not in str(caught.value)
    with pytest.raises(SettingsError, match=named):
        WorkerSettings.from_env({"KAFKA_BOOTSTRAP_SERVERS": "k:9092", **env})


def test_the_password_is_never_shown() -> None:
    found = _settings(
        "http://r:8081", **{REGISTRY_USERNAME_ENV: "u", REGISTRY_PASSWORD_ENV: SECRET}
    )
    assert found.password == SECRET
    assert SECRET not in repr(found)
    assert SECRET not in json.dumps(found.masked())
    assert SECRET not in repr(RegistryClient(found))


def test_basic_auth_reaches_the_registry_and_a_refusal_does_not_echo_it() -> None:
    with running_registry(credentials=("team", SECRET)) as guarded:
        good = _settings(
            guarded.url, **{REGISTRY_USERNAME_ENV: "team", REGISTRY_PASSWORD_ENV: SECRET}
        )
        _, subjects = registry_codec(good, blocking=True)
        assert subjects.id_of("EcpVerdict") == 1
        bad = _settings(guarded.url, **{REGISTRY_USERNAME_ENV: "team", REGISTRY_PASSWORD_ENV: "no"})
        with pytest.raises(RegistryError) as caught:
            RegistryClient(bad).schema_by_id(1)
        assert caught.value.status == 401
        assert SECRET not in str(caught.value) and "no" not in str(caught.value).split()


def test_an_unreachable_registry_is_a_registry_error() -> None:
    with running_registry() as gone:
        url = gone.url
    with pytest.raises(RegistryError) as caught:
        RegistryClient(_settings(url), timeout_s=2).schema_by_id(1)
    assert caught.value.status == 0


def test_fastavro_writes_what_the_codec_reads(writer: AvroCodec, served: RunningRegistry) -> None:
    """A producer of another team (fastavro, the ID from the registry) is read as ours."""
    record = ingested_record("a-4", "https://x.test/4", b"<p>w</p>")
    schema_id = served.registry.subjects["article.ingested-value"][-1]
    schema = parse_schema(json.loads(served.registry.schemas[schema_id - 1]), named_schemas={})
    body = io.BytesIO()
    schemaless_writer(body, schema, record)
    value = b"\x00" + schema_id.to_bytes(4, "big") + body.getvalue()
    assert writer.decode(value, "ArticleIngested") == AvroCodec().decode(
        AvroCodec().encode("ArticleIngested", record), "ArticleIngested"
    )
