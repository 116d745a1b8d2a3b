"""Publish HTML files to ``article.ingested`` the way ingestion does (demo and tests).

``python -m streams.publish FILE_OR_DIR...`` reaches the cluster ``streams.connection`` reads
from the environment (``KAFKA_BOOTSTRAP_SERVERS`` and the security settings). The article ID is
the file name without its extensions; gzip files are sent as they are (the decoder inflates).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Sequence
from pathlib import Path

from confluent_kafka import Producer

from streams.codec import AvroCodec
from streams.connection import KafkaConnection
from streams.preflight import connect_from_env
from streams.records import now
from streams.topics import ARTICLE_INGESTED, MAX_MESSAGE_BYTES, PRODUCER_CONFIG, message_key

HTML_SUFFIXES = (".html", ".htm", ".html.gz", ".htm.gz")


def ingested_record(article_id: str, url: str, html: bytes) -> dict[str, object]:
    return {
        "article_id": article_id,
        "url": url,
        "html": html,
        "received_at": now(),
        "content_type": "text/html",
        "feed": None,
    }


def html_files(paths: Iterable[Path]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(p for p in path.iterdir() if p.name.endswith(HTML_SUFFIXES)))
        else:
            found.append(path)
    return found


def article_id_of(path: Path) -> str:
    name = path.name
    for suffix in sorted(HTML_SUFFIXES, key=len, reverse=True):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def publish(connection: KafkaConnection, records: Iterable[dict[str, object]]) -> int:
    """Produce every record and wait for the broker; returns how many were sent."""
    codec = AvroCodec()
    producer = Producer(
        {
            **connection.confluent(),
            "message.max.bytes": MAX_MESSAGE_BYTES,
            "log_level": 3,  # the broker we just started may still be loading: not news
            **PRODUCER_CONFIG,
        }
    )
    errors: list[str] = []

    def delivered(error: object, _message: object) -> None:
        if error is not None:
            errors.append(str(error))

    sent = 0
    for record in records:
        value = codec.encode(ARTICLE_INGESTED.schema, record)
        key = message_key(str(record["article_id"]))
        producer.produce(ARTICLE_INGESTED.name, key=key, value=value, on_delivery=delivered)
        producer.poll(0)
        sent += 1
    undelivered = producer.flush(30)
    if errors or undelivered:
        first = errors[0] if errors else "no acknowledgement within 30 s"
        raise RuntimeError(f"{len(errors) + undelivered} messages not delivered: {first}")
    return sent


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m streams.publish", description=__doc__)
    parser.add_argument("paths", nargs="+", type=Path)
    args = parser.parse_args(argv)
    connection = connect_from_env(parser.prog)
    files = html_files(args.paths)
    records = (
        ingested_record(article_id_of(p), f"file://{p.resolve()}", p.read_bytes()) for p in files
    )
    print(f"published {publish(connection, records)} articles")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
