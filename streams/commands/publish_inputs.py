"""What ``article-runtime publish`` sends: ``article.ingested`` records from pages or JSON lines.

Each input becomes a record (``Prepared``) or a ``Refused`` with a categorical reason, and a
refusal never stops the others. A page is refused here when the candidates stage would refuse
it (``empty_html``, ``html_too_large``, ``not_html``, ``corrupt_gzip``: the decoder's own
check), so a person learns it at once instead of from a compensation event.

Files: ``.html``/``.htm`` (``.gz`` too, sent as they are: the decoder inflates), folders walked
for them; the article ID is the file name without those extensions, the URL its ``file://``
URI unless ``--url``/``--id`` name them (one file only). JSON lines (``-``): one object a line,

    {"article_id": "...", "url": "...", "html": "<html>..." | "html_path": "page.html.gz",
     "feed": {"title", "subtitle", "author", "published_at", "url"}, "version": 3,
     "content_type": "text/html; charset=utf-8"}

``feed``, ``version`` and ``content_type`` optional, nothing else allowed (a misspelt field is
refused, not ignored).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from article_runtime import bounded_json
from article_runtime.candidates.decode import decode_html
from article_runtime.cli.io import HTML_SUFFIXES, iter_inputs
from article_runtime.errors import InputError
from article_runtime.model import FeedMetadata
from article_runtime.streams.kafka.connection import KafkaConnection
from article_runtime.streams.kafka.producer import ArticleProducer, PublishError
from article_runtime.streams.service.records import now

MAX_ARTICLE_ID_BYTES = 1024
_LONG = 2**63


@dataclass(frozen=True)
class Prepared:
    source: str  # the file, or ``stdin:<line>``
    record: dict[str, Any]

    @property
    def article_id(self) -> str:
        return str(self.record["article_id"])


@dataclass(frozen=True)
class Refused:
    source: str
    reason: str
    detail: str


Input = Prepared | Refused


def ingested_record(
    article_id: str,
    url: str,
    html: bytes,
    *,
    feed: dict[str, Any] | None = None,
    version: int | None = None,
    content_type: str | None = None,
    received_at: datetime | None = None,
) -> dict[str, Any]:
    """An ``ArticleIngested`` record (``schemas/avro/ArticleIngested.avsc``)."""
    return {
        "article_id": article_id,
        "url": url,
        "html": html,
        "received_at": received_at or now(),
        "content_type": content_type,
        "feed": feed,
        "version": version,
    }


def article_id_problem(article_id: str) -> str | None:
    """Why ``article_id`` cannot key an article, or None: it names it in URLs, logs, keys."""
    if not article_id.strip():
        return "empty"
    if article_id != article_id.strip():
        return "leading or trailing white space"
    if any(unicodedata.category(ch) in ("Cc", "Cs") for ch in article_id):
        return "control character or lone surrogate"
    if len(article_id.encode("utf-8")) > MAX_ARTICLE_ID_BYTES:
        return f"longer than {MAX_ARTICLE_ID_BYTES} bytes of UTF-8"
    return None


def html_files(paths: Iterable[Path]) -> list[Path]:
    """Files as given; folders walked for pages in sorted order."""
    return list(iter_inputs([str(p) for p in paths]))


def article_id_of(path: Path) -> str:
    name = path.name
    for suffix in sorted(HTML_SUFFIXES, key=len, reverse=True):
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return name


def prepared(
    source: str, article_id: str, url: str, html: bytes, **optional: Any
) -> Prepared | Refused:
    """The record, or why the candidates stage would refuse it."""
    problem = article_id_problem(article_id)
    if problem is not None:
        return Refused(source, "invalid_article_id", f"{article_id[:80]!r}: {problem}")
    if not url.strip():
        return Refused(source, "invalid_field", "url: empty")
    try:
        decode_html(html)
    except InputError as error:
        return Refused(source, error.reason, error.detail)
    return Prepared(source, ingested_record(article_id, url, html, **optional))


def from_files(
    paths: Sequence[str], *, url: str | None = None, article_id: str | None = None
) -> Iterator[Input]:
    """One input per page file (folders walked); ``url``/``article_id`` for a single file."""
    for path in iter_inputs(paths):
        source = str(path)
        if not path.name.lower().endswith(HTML_SUFFIXES):
            yield Refused(source, "not_an_html_file", f"not {', '.join(HTML_SUFFIXES)}")
            continue
        try:
            html = path.read_bytes()
        except OSError as error:
            yield Refused(source, "unreadable_input", error.strerror or type(error).__name__)
            continue
        yield prepared(
            source, article_id or article_id_of(path), url or path.resolve().as_uri(), html
        )


class PublishLine(BaseModel):
    """One JSON line of ``publish -``: strict, so a misspelt field is refused, not ignored."""

    model_config = ConfigDict(extra="forbid", strict=True)

    article_id: str
    url: str
    html: str | None = None
    html_path: str | None = None
    feed: FeedMetadata | None = None
    version: int | None = Field(default=None, ge=-_LONG, lt=_LONG)
    content_type: str | None = None


_PYDANTIC_REASONS = {"missing": "missing_field", "extra_forbidden": "unknown_field"}


def from_json_line(source: str, line: bytes) -> Input:
    try:
        data = bounded_json.loads(line)
    except ValueError as error:
        return Refused(source, "invalid_json", str(error)[:200])
    if not isinstance(data, dict):
        return Refused(source, "invalid_json", f"a JSON object expected, not {type(data).__name__}")
    try:
        item = PublishLine.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "line"
        reason = _PYDANTIC_REASONS.get(first["type"], "invalid_field")
        return Refused(source, reason, f"{where}: {first['msg']}")
    if (item.html is None) == (item.html_path is None):
        return Refused(source, "invalid_field", "give exactly one of html and html_path")
    if item.html is not None:
        html = item.html.encode("utf-8")
    else:
        try:
            html = Path(str(item.html_path)).read_bytes()
        except OSError as error:
            detail = f"html_path {item.html_path}: {error.strerror or type(error).__name__}"
            return Refused(source, "unreadable_input", detail)
        except ValueError as error:  # a path no file system takes: a NUL byte in it
            return Refused(source, "unreadable_input", f"html_path: {error}")
    feed = None if item.feed is None else item.feed.model_dump()
    return prepared(
        source,
        item.article_id,
        item.url,
        html,
        feed=feed,
        version=item.version,
        content_type=item.content_type,
    )


def from_json_lines(lines: Iterable[bytes], name: str = "stdin") -> Iterator[Input]:
    """One input per non-blank line, named ``<name>:<line number>``."""
    for number, line in enumerate(lines, start=1):
        if line.strip():
            yield from_json_line(f"{name}:{number}", line)


def once_per_article(inputs: Iterable[Input]) -> Iterator[Input]:
    """Refuse a second input with an article ID already published in this run: it would
    become a newer version of the first (``a.html`` beside ``a.html.gz``), rarely the intent."""
    first: dict[str, str] = {}
    for item in inputs:
        if isinstance(item, Prepared):
            seen = first.setdefault(item.article_id, item.source)
            if seen != item.source:
                yield Refused(item.source, "duplicate_article_id", f"{item.article_id} is {seen}")
                continue
        yield item


def publish(connection: KafkaConnection, records: Iterable[dict[str, Any]]) -> int:
    """Publish ``records`` to ``article.ingested`` (demo and tests); how many were published.

    Raises:
        article_runtime.streams.kafka.producer.PublishError: the first record that was not
        published.
    """
    with ArticleProducer(connection) as producer:
        results = producer.send_all(records)
    failed = [r for r in results if isinstance(r, PublishError)]
    if failed:
        raise failed[0]
    return len(results)
