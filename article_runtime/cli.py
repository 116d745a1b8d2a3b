"""``article-runtime``: the core from the command line.

article-runtime candidates FILE [--url URL]
article-runtime extract PATH... [--url URL] [--proposal FILE] [--format markdown|json|jsonl]
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from tqdm import tqdm

from article_runtime.candidates import build_candidates
from article_runtime.errors import ArticleRuntimeError
from article_runtime.extract import extract_article
from article_runtime.hygiene_context import render_hygiene_context
from article_runtime.model import AssembledArticle
from article_runtime.tokens import TOKENIZER, count_tokens

HTML_SUFFIXES = (".html", ".htm", ".html.gz", ".htm.gz")


def _is_html(path: Path) -> bool:
    return path.name.lower().endswith(HTML_SUFFIXES)


def iter_inputs(paths: Sequence[str]) -> Iterator[Path]:
    """Files as given, folders walked for HTML files in sorted order."""
    for name in paths:
        path = Path(name)
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*") if p.is_file() and _is_html(p))
        else:
            yield path


def read_input(path: Path) -> bytes:
    """Raw bytes; decoding (charset, gzip bombs) is the candidate builder's job."""
    return path.read_bytes()


def _print_json(data: Any, *, indent: int | None = 2) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=indent) + "\n")


def cmd_candidates(args: argparse.Namespace) -> int:
    raw = read_input(Path(args.file))
    candidates = build_candidates(raw, url=args.url)
    html_text = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
    out = candidates.model_dump(mode="json")
    out["context_tokens"] = count_tokens(render_hygiene_context(candidates))
    out["html_tokens"] = count_tokens(html_text.decode("utf-8", errors="replace"))
    out["tokenizer"] = TOKENIZER
    _print_json(out)
    return 0


def _as_markdown(article: AssembledArticle) -> str:
    front = {
        "source": article.source,
        "title": article.title,
        "subtitle": article.subtitle,
        "author": article.author,
        "published_at": article.published_at,
        "source_url": article.source_url,
        "language": article.language,
        "path": article.path,
    }
    lines = [f"{key}: {json.dumps(value, ensure_ascii=False)}" for key, value in front.items()]
    return "---\n" + "\n".join(lines) + "\n---\n\n" + article.markdown


def cmd_extract(args: argparse.Namespace) -> int:
    files = list(iter_inputs(args.paths))
    if args.url and len(files) > 1:
        sys.stderr.write("error: --url applies to a single input file\n")
        return 2
    proposal = Path(args.proposal).read_bytes() if args.proposal else None
    fmt = args.format or ("json" if len(files) == 1 else "jsonl")
    failures = 0
    for path in tqdm(files, file=sys.stderr, unit="article", disable=len(files) < 2):
        try:
            article = extract_article(
                read_input(path), source=str(path), url=args.url, proposal=proposal
            )
        except (ArticleRuntimeError, OSError) as exc:
            failures += 1
            reason = getattr(exc, "reason", "unreadable_input")
            detail = getattr(exc, "detail", str(exc))
            sys.stderr.write(f"error: {path}: {reason}: {detail}\n")
            if fmt != "markdown":
                error = {"source": str(path), "error": {"reason": reason, "detail": detail}}
                _print_json(error, indent=None if fmt == "jsonl" else 2)
            continue
        if fmt == "markdown":
            sys.stdout.write(_as_markdown(article) + "\n")
        else:
            _print_json(article.model_dump(mode="json"), indent=None if fmt == "jsonl" else 2)
    return 1 if failures else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="article-runtime",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)
    cand = sub.add_parser("candidates", help="print the candidate set of one page as JSON")
    cand.add_argument("file")
    cand.add_argument("--url", help="the ingestion URL of the page")
    cand.set_defaults(func=cmd_candidates)
    ext = sub.add_parser("extract", help="assemble articles from pages (.html, .html.gz, folders)")
    ext.add_argument("paths", nargs="+")
    ext.add_argument("--url", help="the ingestion URL (single input only)")
    ext.add_argument(
        "--proposal",
        help="a hygiene proposal (JSON) to judge instead of the "
        "deterministic path; falls back to it when invalid",
    )
    ext.add_argument("--format", choices=("markdown", "json", "jsonl"))
    ext.set_defaults(func=cmd_extract)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        code: int = args.func(args)
    except ArticleRuntimeError as exc:
        sys.stderr.write(f"error: {exc.reason}: {exc.detail}\n")
        return 1
    except OSError as exc:
        sys.stderr.write(f"error: unreadable_input: {exc}\n")
        return 1
    return code


if __name__ == "__main__":
    raise SystemExit(main())
