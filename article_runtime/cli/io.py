"""Reading inputs and writing results for the command line: the only place that prints."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from article_runtime.errors import ArticleRuntimeError
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
    """One JSON document on stdout. Text the stream cannot encode (a lone surrogate from a
    file name, a terminal that is not UTF-8) is written as JSON escapes instead: printing a
    result never fails."""
    indent = None if lines else 2
    text = json.dumps(data, ensure_ascii=False, indent=indent) + "\n"
    try:
        text.encode(sys.stdout.encoding or "utf-8")
    except (UnicodeEncodeError, LookupError):
        text = json.dumps(data, ensure_ascii=True, indent=indent) + "\n"
    sys.stdout.write(text)


def _safe(text: str) -> str:
    """``text`` as the stream can print it (unencodable characters backslash-escaped)."""
    encoding = sys.stderr.encoding or "utf-8"
    try:
        return text.encode(encoding, errors="backslashreplace").decode(encoding)
    except LookupError:
        return text.encode("ascii", errors="backslashreplace").decode("ascii")


def note(message: str) -> None:
    sys.stderr.write(_safe(f"note: {message}\n"))


def error_line(source: str, reason: str, detail: str) -> None:
    sys.stderr.write(_safe(f"error: {source}: {reason}: {detail}\n"))


def error_record(source: str, exc: BaseException) -> dict[str, Any]:
    """What the command line prints for an input it could not turn into a result.

    Our own errors carry a categorical reason; anything else is ``internal_error`` named by
    its exception class (the message too, never a traceback: the input may be hostile and
    the output is data).
    """
    if isinstance(exc, ArticleRuntimeError):
        return {"source": source, "error": {"reason": exc.reason, "detail": exc.detail}}
    if isinstance(exc, OSError):
        return {"source": source, "error": {"reason": "unreadable_input", "detail": str(exc)}}
    detail = f"{type(exc).__name__}: {str(exc)[:300]}"
    return {"source": source, "error": {"reason": "internal_error", "detail": detail}}


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
