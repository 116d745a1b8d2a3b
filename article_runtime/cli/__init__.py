"""``article-runtime``: the core from the command line.

    article-runtime candidates FILE [--url URL]
    article-runtime extract PATH... [--url URL] [--proposal FILE] [--providers FILE]
                                    [--format markdown|json|jsonl]
    article-runtime enrich ARTICLE.json --qid QID --name NAME [--identity TEXT]
                                        [--providers FILE]

Providers come from --providers or $ARTICLE_RUNTIME_PROVIDERS; API keys only from the
environment variables the providers file names.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence

from article_runtime.cli import candidates, enrich, extract
from article_runtime.cli.io import error_line, error_record

__all__ = ["build_parser", "main"]


# The help names no command itself: argparse lists every command added, the stream package's
# too, each with its help line, so the list cannot fall behind.
DESCRIPTION = """News articles from raw HTML: the candidate set, the assembled article and its
enrichment, one page at a time; and, with a Kafka cluster (KAFKA_BOOTSTRAP_SERVERS), pages
published to the flow, its topics read, terminal articles redriven and recorded answers
judged again. Each command has its own --help."""
EPILOG = """Providers come from --providers or $ARTICLE_RUNTIME_PROVIDERS; API keys only from the
environment variables the providers file names. README.md and docs/operating.md say more."""

Commands = Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], None]


def build_parser(*more: Commands) -> argparse.ArgumentParser:
    """The core's commands, plus ``more`` (the stream package adds those that need Kafka)."""
    parser = argparse.ArgumentParser(
        prog="article-runtime",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)

    cand = sub.add_parser("candidates", help="print the candidate set of one page as JSON")
    cand.add_argument("file")
    cand.add_argument("--url", help="the ingestion URL of the page")
    cand.set_defaults(func=candidates.run)

    ext = sub.add_parser("extract", help="assemble articles from pages (.html, .html.gz, folders)")
    ext.add_argument("paths", nargs="+")
    ext.add_argument("--url", help="the ingestion URL (single input only)")
    ext.add_argument(
        "--proposal",
        help="a recorded hygiene proposal (JSON) to judge; falls back to the deterministic path",
    )
    ext.add_argument("--providers", help="providers YAML (default: $ARTICLE_RUNTIME_PROVIDERS)")
    ext.add_argument("--format", choices=("markdown", "json", "jsonl"))
    ext.set_defaults(func=extract.run)

    enr = sub.add_parser("enrich", help="sentiment towards an ECP entity and tags, for an article")
    enr.add_argument("article", help="one article as printed by `extract --format json`")
    enr.add_argument("--qid", required=True)
    enr.add_argument("--name", required=True, help="the entity's canonical name")
    enr.add_argument("--identity", help="minimal identity telling the entity apart")
    enr.add_argument("--providers", help="providers YAML (default: $ARTICLE_RUNTIME_PROVIDERS)")
    enr.set_defaults(func=enrich.run)
    for add in more:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None, *more: Commands) -> int:
    """Exit code 0 on success, 1 when an input (or the configuration) failed, 2 on bad usage.

    A failure that escapes a command (a bad providers file, an unreadable single input) is
    one error line on stderr with its categorical reason, never a traceback.
    """
    args = build_parser(*more).parse_args(argv)
    try:
        code: int = args.func(args)
    except Exception as exc:
        record = error_record(getattr(args, "file", None) or args.command, exc)
        error_line(record["source"], record["error"]["reason"], record["error"]["detail"])
        return 1
    return code
