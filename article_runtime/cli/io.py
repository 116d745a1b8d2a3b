"""Reading inputs and writing results for the command line: the only place that prints."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from article_runtime.model import AssembledArticle

HTML_SUFFIXES = (".html", ".htm", ".html.gz", ".htm.gz")


def iter_inputs(paths: Sequence[str]) -> Iterator[Path]:
    """Files as given; folders walked for HTML files in sorted order."""
    for name in paths:
        path = Path(name)
        if path.is_dir():
            yield from sorted(
                p for p in path.rglob("*") if p.is_file() and p.name.lower().endswith(HTML_SUFFIXES)
            )
        else:
            yield path


def print_json(data: Any, *, lines: bool = False) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=None if lines else 2) + "\n")


def note(message: str) -> None:
    sys.stderr.write(f"note: {message}\n")


def error_line(source: str, reason: str, detail: str) -> None:
    sys.stderr.write(f"error: {source}: {reason}: {detail}\n")


def as_markdown(article: AssembledArticle) -> str:
    """Front matter (JSON values, so also valid YAML) and the Markdown body."""
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
