"""``article-runtime publish PATH...|-``: pages or JSON lines to ``article.ingested``.

Reads inputs lazily (``article_runtime.streams.commands.publish_inputs``), publishes them with
``ArticleProducer``, shows a progress bar on a terminal, and ends with a summary: how many were
published, and each refused input with its reason on stderr. Exit code 1 when any input was
refused.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Iterator
from typing import Any

from tqdm import tqdm

from article_runtime.cli.io import error_line, iter_inputs
from article_runtime.streams.commands.publish_inputs import (
    Input,
    Prepared,
    Refused,
    from_files,
    from_json_lines,
    once_per_article,
)
from article_runtime.streams.kafka.preflight import connect_from_env
from article_runtime.streams.kafka.producer import ArticleProducer, PublishError, Result
from article_runtime.streams.kafka.topics import ARTICLE_INGESTED

USAGE_ERROR = 2


def add(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cmd = sub.add_parser(
        "publish",
        help="publish pages (.html, .html.gz, folders) or JSON lines (-) to article.ingested",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    cmd.add_argument("paths", nargs="+", metavar="PATH", help="page files, folders, or - (stdin)")
    cmd.add_argument("--url", help="the page's URL (one file only; default its file:// URI)")
    cmd.add_argument("--id", dest="article_id", help="the article ID (one file only)")
    cmd.set_defaults(func=run)


def _inputs(args: argparse.Namespace) -> tuple[Iterator[Input], int | None] | str:
    """The inputs (read lazily) and how many when known, or what is wrong with the command."""
    if "-" in args.paths:
        if len(args.paths) > 1 or args.url or args.article_id:
            return "- reads JSON lines from stdin: give it alone, each line names its article"
        return from_json_lines(sys.stdin.buffer), None
    files = [str(path) for path in iter_inputs(args.paths)]
    if (args.url or args.article_id) and len(files) != 1:
        return f"--url and --id name one page; {len(files)} found"
    return from_files(files, url=args.url, article_id=args.article_id), len(files)


def run(args: argparse.Namespace) -> int:
    found = _inputs(args)
    if isinstance(found, str):
        error_line("publish", "usage", found)
        return USAGE_ERROR
    inputs, total = found
    try:
        connection = connect_from_env("article-runtime publish")
        with ArticleProducer(connection) as producer:
            published, refused = _publish(producer, inputs, total)
            partitions = producer.partitions
    except PublishError as error:
        reason = getattr(error, "reason", "connection_setting")
        error_line("publish", reason, getattr(error, "detail", str(error)))
        return 1
    for item in refused:
        error_line(item.source, item.reason, item.detail)
    reasons = Counter(item.reason for item in refused)
    why = ", ".join(f"{n} {reason}" for reason, n in sorted(reasons.items()))
    print(
        f"published {published} to {ARTICLE_INGESTED.name} ({partitions} partitions); "
        f"refused {len(refused)}" + (f" ({why})" if why else "")
    )
    return 1 if refused else 0


def _publish(
    producer: ArticleProducer, inputs: Iterator[Input], total: int | None
) -> tuple[int, list[Refused]]:
    refused: list[Refused] = []
    sources: list[str] = []
    with tqdm(
        total=total, desc="publishing", unit="art", file=sys.stderr, disable=not sys.stderr.isatty()
    ) as bar:

        def records() -> Iterator[dict[str, Any]]:
            for item in once_per_article(inputs):
                if isinstance(item, Prepared):
                    sources.append(item.source)
                    yield item.record
                else:
                    refused.append(item)
                    bar.update()

        def settled(index: int, result: Result) -> None:
            if isinstance(result, PublishError):
                refused.append(Refused(sources[index], result.reason, result.detail))
            bar.update()

        results = producer.send_all(records(), on_result=settled)
    return sum(not isinstance(r, PublishError) for r in results), refused
