"""The ``article-runtime`` command: the core's commands plus those that talk to Kafka.

The core (``article_runtime.cli``) never imports Kafka, so the commands that need a cluster
live here, one module each, and all reach it through ``article_runtime.streams.kafka.connection``.
Each module exposes ``add(subparsers)``; adding a command is one line in ``KAFKA_COMMANDS``.
"""

from __future__ import annotations

from collections.abc import Sequence

from article_runtime.cli import Commands
from article_runtime.cli import main as core_main
from article_runtime.streams.commands import consume, publish, redrive, replay

KAFKA_COMMANDS: tuple[Commands, ...] = (publish.add, consume.add, redrive.add, replay.add)


def main(argv: Sequence[str] | None = None) -> int:
    return core_main(argv, *KAFKA_COMMANDS)
