"""``article-runtime replay``: recorded answers judged again with the current harness.

    article-runtime replay [--from TIME] [--until TIME] [--article ID]

Reads the answers ``article.proposal`` recorded (from ``--from``, up to ``--until``, one
article or all), runs each article's ladder again over them with the harness as it is in this
checkout, and prints one JSON line per article: what the topics recorded for that version
(``article.assembled`` or the terminal event on ``article.compensation``), what the harness
says now, and ``changes``: which of outcome, path, accepted repairs and Markdown hash would
differ. A summary line ends the output. No model is asked: where the ladder would now need a
rung no model was asked for, the outcome is ``needs_model``. Times are ISO 8601 or a duration
ago (``2h``, ``90m``, ``1d``). The cluster comes from the environment, as for the other
commands. Exit code 0 when nothing would change, 3 when something would, 1 on an error.
"""

from __future__ import annotations

import argparse
import json
import sys
import uuid
from collections import defaultdict
from typing import Any

from confluent_kafka import Consumer

from article_runtime.cli.io import error_line
from article_runtime.streams.commands.rejudged import ladder_of, line, recorded_outcome, summary
from article_runtime.streams.kafka.connection import KafkaConnection
from article_runtime.streams.kafka.preflight import connect_from_env
from article_runtime.streams.kafka.registry_codec import codec_from_env
from article_runtime.streams.kafka.snapshot import Unavailable, read_to_end
from article_runtime.streams.kafka.topics import (
    ARTICLE_ASSEMBLED,
    ARTICLE_COMPENSATION,
    ARTICLE_PROPOSAL,
)
from article_runtime.streams.service.redrive import moment

CHANGED_EXIT = 3


def _consumer(connection: KafkaConnection) -> Consumer:
    return Consumer(
        connection.confluent()
        | {
            "group.id": f"article-runtime-replay-{uuid.uuid4().hex}",  # never commits
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
            "enable.partition.eof": True,
            "log_level": 3,
        }
    )


def run(args: argparse.Namespace) -> int:
    since = None if args.since is None else moment(args.since)
    until = None if args.until is None else moment(args.until)
    since_ms = None if since is None else int(since.timestamp() * 1000)
    consumer, codec = _consumer(connect_from_env("article-runtime replay")), codec_from_env()
    proposals: dict[str, list[dict[str, Any]]] = defaultdict(list)
    outcomes: dict[str, list[tuple[str, dict[str, Any]]]] = defaultdict(list)
    try:
        for read in read_to_end(consumer, ARTICLE_PROPOSAL.name, codec, since_ms=since_ms):
            record = read.record
            if args.article not in (None, record["article_id"]):
                continue
            if until is not None and record["proposed_at"] > until:
                continue
            proposals[record["article_id"]].append(record)
        for topic in (ARTICLE_ASSEMBLED.name, ARTICLE_COMPENSATION.name):
            for read in read_to_end(consumer, topic, codec, since_ms=since_ms):
                if read.record["article_id"] in proposals:
                    outcomes[read.record["article_id"]].append((topic, read.record))
    except Unavailable as why:
        error_line("replay", str(why).split(":", 1)[0], str(why))
        return 1
    finally:
        consumer.close()
    lines = []
    for article_id in sorted(proposals):
        ladder = ladder_of(proposals[article_id])
        recorded = recorded_outcome(ladder[0].get("version"), outcomes[article_id])
        lines.append(line(article_id, ladder, recorded))
        print(json.dumps(lines[-1], ensure_ascii=False), flush=True)
    last = summary(lines)
    print(json.dumps(last), flush=True)
    print(
        f"{last['summary']['changed']} of {last['summary']['compared']} articles would change",
        file=sys.stderr,
    )
    return CHANGED_EXIT if last["summary"]["changed"] else 0


def add(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "replay",
        help="judge recorded model answers again with the current harness (no model call)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--from", dest="since", help="answers recorded at or after: ISO 8601, or 2h, 90m, 1d ago"
    )
    parser.add_argument("--until", help="answers recorded at or before (same forms)")
    parser.add_argument("--article", help="only this article ID")
    parser.set_defaults(func=run)
