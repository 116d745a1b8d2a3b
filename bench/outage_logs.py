"""What a worker logs while its broker is down: lines per second, by level and by kind.

Run: ``.venv/bin/python -m bench.outage_logs [--down-s 60] [--level info]``.

A local broker and one worker without providers (JSON logs, the chart's default level), a few
seconds to settle, then the broker is SIGKILLed and the worker's log is read ``--down-s``
later: the lines written meanwhile, per second, per level, and the most frequent kinds
(logger and the message's first words). ``--level debug`` shows every Kafka client line, as
the worker logs without its client filter (``article_runtime.streams.service.client_logs``).
"""

from __future__ import annotations

import argparse
import json
import socket
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from article_runtime.streams.kafka.admin import ensure_topics
from article_runtime.streams.local.broker import local_broker
from article_runtime.streams.local.worker_process import WorkerProcess
from article_runtime.streams.service.logs import LOG_FORMAT_ENV, LOG_LEVEL_ENV


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--down-s", type=float, default=60.0, help="seconds the broker is down")
    parser.add_argument("--level", default="info", help="ARTICLE_RUNTIME_LOG_LEVEL of the worker")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as work, local_broker(start_timeout_s=120) as broker:
        ensure_topics(broker.connection)
        log_path = Path(work) / "worker.log"
        env = {LOG_FORMAT_ENV: "json", LOG_LEVEL_ENV: args.level}
        worker = WorkerProcess(broker.connection, web_port=free_port(), log_path=log_path, env=env)
        try:
            worker.start(timeout_s=120)
            time.sleep(5)
            before = len(log_path.read_text().splitlines())
            broker.kill()
            began = time.monotonic()
            time.sleep(args.down_s)
            lines = log_path.read_text().splitlines()[before:]
            took = time.monotonic() - began
        finally:
            worker.kill()
    entries = [json.loads(line) for line in lines if line.startswith("{")]
    levels = Counter(e["level"] for e in entries)
    kinds = Counter((e["level"], e["logger"], e["message"][:60]) for e in entries)
    print(f"broker down {took:.0f} s: {len(lines)} lines, {len(lines) / took:.2f} a second")
    print("by level: " + ", ".join(f"{level} {n}" for level, n in sorted(levels.items())))
    for (level, logger, message), n in kinds.most_common(10):
        print(f"{n:7d}  {level:7s} {logger}: {message}")


if __name__ == "__main__":
    main()
