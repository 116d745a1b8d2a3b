"""``article-runtime consume TOPIC``: the decoded records of one of our topics, as JSON lines.

One record a line on stdout (``article_runtime.streams.kafka.decoding.json_ready``: bytes as base64,
times as ISO 8601), for people and for scripts (``| jq``). A message that does not decode is one
error line on stderr with its reason and position, and the rest go on (exit code 1 at the end).

Without ``--group`` it reads every partition outside any consumer group and commits nothing:
new records only, or all of them with ``--from-beginning``. With ``--group G`` it joins G and
commits each record once printed, so the next run continues after it (``--from-beginning``
then applies only when G has committed nothing). ``--dedup`` drops repeats on the topic's
documented keys (``schemas/README.md``).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import uuid

from confluent_kafka import (
    OFFSET_BEGINNING,
    OFFSET_END,
    Consumer,
    KafkaError,
    KafkaException,
    TopicPartition,
)

from article_runtime.cli.io import error_line, print_json
from article_runtime.streams.kafka.codec import DecodeError
from article_runtime.streams.kafka.connection import ConnectionSettingError, KafkaConnection
from article_runtime.streams.kafka.decoding import Deduplicator, decode_message, json_ready
from article_runtime.streams.kafka.topics import BY_NAME, MAX_MESSAGE_BYTES

METADATA_TIMEOUT_S = 30.0


def add(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cmd = sub.add_parser(
        "consume",
        help="print the decoded records of one of our topics as JSON lines",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    cmd.add_argument("topic", choices=sorted(BY_NAME), metavar="TOPIC", help=", ".join(BY_NAME))
    cmd.add_argument("--from-beginning", action="store_true", help="start at the oldest record")
    cmd.add_argument("--group", help="consumer group: commit what was printed, resume after it")
    cmd.add_argument("--dedup", action="store_true", help="drop repeats (the documented keys)")
    cmd.add_argument("--idle-timeout", type=float, help="stop after this many quiet seconds")
    cmd.add_argument("--max-messages", type=int, help="stop after printing this many records")
    cmd.set_defaults(func=run)


def _consumer(connection: KafkaConnection, args: argparse.Namespace) -> Consumer:
    config = {
        **connection.confluent(),
        "group.id": args.group or f"article-runtime-consume-{uuid.uuid4().hex}",
        "enable.auto.commit": bool(args.group),
        "enable.auto.offset.store": False,  # stored by hand once the record is printed
        "auto.offset.reset": "earliest" if args.from_beginning else "latest",
        "fetch.message.max.bytes": MAX_MESSAGE_BYTES,
        "allow.auto.create.topics": False,
        "log_level": 3,
    }
    consumer = Consumer(config)
    if args.group:
        consumer.subscribe([args.topic])
        return consumer
    metadata = consumer.list_topics(args.topic, timeout=METADATA_TIMEOUT_S)
    found = metadata.topics[args.topic]
    if found.error is not None:
        consumer.close()
        raise LookupError(f"{args.topic}: {found.error.str()}")
    start = OFFSET_BEGINNING if args.from_beginning else OFFSET_END
    consumer.assign([TopicPartition(args.topic, p, start) for p in sorted(found.partitions)])
    return consumer


def run(args: argparse.Namespace) -> int:
    try:
        consumer = _consumer(KafkaConnection.from_env(), args)
    except (ConnectionSettingError, LookupError, KafkaException) as error:
        error_line("consume", "kafka", str(error))
        return 1
    seen = Deduplicator() if args.dedup else None
    printed = failed = 0
    last = time.monotonic()
    try:
        while args.max_messages is None or printed < args.max_messages:
            if args.idle_timeout is not None and time.monotonic() - last > args.idle_timeout:
                break
            message = consumer.poll(0.5)
            if message is None:
                continue
            trouble = message.error()
            if trouble is not None:
                if trouble.code() != KafkaError._PARTITION_EOF:
                    error_line("consume", "kafka", trouble.str())
                    failed += 1
                continue
            last = time.monotonic()
            where = f"{message.topic()}/{message.partition()}@{message.offset()}"
            try:
                record = decode_message(args.topic, message.value())
            except DecodeError as bad:
                error_line(where, bad.reason, bad.detail)
                failed += 1
            else:
                if seen is None or seen.first(args.topic, record):
                    print_json(json_ready(record), lines=True)
                    sys.stdout.flush()
                    printed += 1
            if args.group:
                consumer.store_offsets(message)
    except KeyboardInterrupt:
        pass
    except BrokenPipeError:  # the reader went away (``| head``): nothing left to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    finally:
        consumer.close()  # commits what was stored, with a group
    return 1 if failed else 0
