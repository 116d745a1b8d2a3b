"""What ``article-runtime publish`` makes of its inputs: a record or a refusal with a reason,
whatever a line or a file holds, and never an exception."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from article_runtime.streams.commands.publish_inputs import (
    Prepared,
    Refused,
    article_id_problem,
    from_files,
    from_json_line,
    from_json_lines,
    once_per_article,
)
from article_runtime.streams.kafka.codec import AvroCodec
from tests.conftest import SAMPLES

CODEC = AvroCodec()
PAGE = (
    "<html><head><title>Título</title></head><body><p>Olá, mundo: um parágrafo.</p></body></html>"
)
FEED_FIELDS = ("title", "subtitle", "author", "published_at", "url")
# Every reason an input may be refused with before it is sent: the decoder's and ours.
REASONS = {
    "invalid_json",
    "missing_field",
    "unknown_field",
    "invalid_field",
    "invalid_article_id",
    "unreadable_input",
    "empty_html",
    "html_too_large",
    "not_html",
    "corrupt_gzip",
}


def line(**fields: Any) -> bytes:
    return json.dumps(fields).encode("utf-8")


def test_a_complete_line_becomes_the_record_it_describes() -> None:
    feed = {"title": "T", "author": "Redação"}
    item = from_json_line(
        "stdin:1",
        line(
            article_id="folha-1",
            url="https://x.test/a",
            html=PAGE,
            feed=feed,
            version=7,
            content_type="text/html; charset=utf-8",
        ),
    )
    assert isinstance(item, Prepared)
    record = item.record
    assert record["html"] == PAGE.encode("utf-8")
    assert record["feed"] == {name: feed.get(name) for name in FEED_FIELDS}
    assert (record["article_id"], record["url"], record["version"]) == (
        "folha-1",
        "https://x.test/a",
        7,
    )
    CODEC.encode("ArticleIngested", record)  # valid against the contract


def test_html_path_is_read_as_bytes_gzip_included(tmp_path: Path) -> None:
    page = tmp_path / "p.html.gz"
    page.write_bytes(gzip.compress(PAGE.encode("utf-8")))
    item = from_json_line("stdin:1", line(article_id="a", url="https://x", html_path=str(page)))
    assert isinstance(item, Prepared) and item.record["html"] == page.read_bytes()


def test_bad_lines_are_refused_with_their_reason(tmp_path: Path) -> None:
    cases = {
        b"not json": "invalid_json",
        b"[1, 2]": "invalid_json",
        b'{"article_id": "a", "url": "u", "html": "\\ud800"}': "invalid_json",
        line(url="u", html=PAGE): "missing_field",
        line(article_id="a", url="u", htm=PAGE): "unknown_field",
        line(article_id="a", url="u", html=PAGE, feed={"titel": "x"}): "unknown_field",
        line(article_id="a", url="u", html=PAGE, version=True): "invalid_field",
        line(article_id="a", url="u", html=PAGE, version=2**63): "invalid_field",
        line(article_id=3, url="u", html=PAGE): "invalid_field",
        line(article_id="a", url="u"): "invalid_field",
        line(article_id="a", url="u", html=PAGE, html_path="x"): "invalid_field",
        line(article_id=" a", url="u", html=PAGE): "invalid_article_id",
        line(article_id="a\nb", url="u", html=PAGE): "invalid_article_id",
        line(article_id="a", url="u", html_path=str(tmp_path / "gone.html")): "unreadable_input",
        line(article_id="a", url="u", html_path="a\x00b"): "unreadable_input",  # no such path
        line(article_id="a", url="u", html=""): "empty_html",
        line(article_id="a", url="u", html="%PDF-1.7 \x00\x01"): "not_html",
    }
    for raw, reason in cases.items():
        item = from_json_line("stdin:1", raw)
        assert isinstance(item, Refused), raw
        assert item.reason == reason, (raw, item)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)
near_lines = st.fixed_dictionaries(
    {},
    optional={
        "article_id": st.text(max_size=20) | json_values,
        "url": st.text(max_size=20) | json_values,
        "html": st.sampled_from([PAGE, "", "x"]) | json_values,
        "html_path": st.text(max_size=10) | json_values,
        "feed": st.dictionaries(st.sampled_from([*FEED_FIELDS, "other"]), json_values, max_size=3)
        | json_values,
        "version": st.integers() | json_values,
        "extra": json_values,
    },
)


@settings(max_examples=300, deadline=None)
@given(near_lines | json_values, st.binary(max_size=8))
def test_any_line_is_a_valid_record_or_a_categorical_refusal(data: Any, noise: bytes) -> None:
    for raw in (json.dumps(data).encode("utf-8"), noise + json.dumps(data).encode("utf-8")):
        item = from_json_line("stdin:1", raw)
        if isinstance(item, Refused):
            assert item.reason in REASONS and item.detail
        else:
            assert article_id_problem(item.article_id) is None
            CODEC.encode("ArticleIngested", item.record)


def test_blank_lines_are_skipped_and_lines_are_numbered() -> None:
    items = list(from_json_lines([b"\n", line(article_id="a", url="u", html=PAGE), b"  \n", b"x"]))
    assert [i.source for i in items] == ["stdin:2", "stdin:4"]


def test_files_and_folders(tmp_path: Path) -> None:
    (tmp_path / "ok.html").write_text(PAGE)
    (tmp_path / "ok2.HTM.gz").write_bytes(gzip.compress(PAGE.encode()))
    (tmp_path / "empty.html").write_bytes(b"")
    (tmp_path / "broken.html.gz").write_bytes(gzip.compress(PAGE.encode())[:20])
    (tmp_path / "notes.txt").write_text("not a page")  # a folder is walked for pages only
    readme = tmp_path / "README.md"
    readme.write_text("# not a page")
    items = list(from_files([str(tmp_path), str(readme)]))
    got = {Path(i.source).name: i for i in items}
    assert set(got) == {"ok.html", "ok2.HTM.gz", "empty.html", "broken.html.gz", "README.md"}
    assert isinstance(got["ok.html"], Prepared) and got["ok.html"].article_id == "ok"
    assert got["ok.html"].record["url"] == (tmp_path / "ok.html").as_uri()
    assert isinstance(got["ok2.HTM.gz"], Prepared) and got["ok2.HTM.gz"].article_id == "ok2"
    refused = {name: i.reason for name, i in got.items() if isinstance(i, Refused)}
    assert refused == {
        "empty.html": "empty_html",
        "broken.html.gz": "corrupt_gzip",
        "README.md": "not_an_html_file",
    }


def test_url_and_id_name_the_single_page() -> None:
    (item,) = from_files(
        [str(SAMPLES / "nhk.or.jp.k100.html")], url="https://n.jp/k", article_id="k"
    )
    assert isinstance(item, Prepared)
    assert (item.article_id, item.record["url"]) == ("k", "https://n.jp/k")


def test_a_second_input_of_one_article_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text(PAGE)
    (tmp_path / "a.html.gz").write_bytes(gzip.compress(PAGE.encode()))
    items = list(once_per_article(from_files([str(tmp_path)])))
    assert [type(i).__name__ for i in items] == ["Prepared", "Refused"]
    assert isinstance(items[1], Refused) and items[1].reason == "duplicate_article_id"


@given(st.text(max_size=40))
def test_an_accepted_article_id_is_a_clean_utf8_key(article_id: str) -> None:
    if article_id_problem(article_id) is None:
        key = article_id.encode("utf-8")  # never raises: no lone surrogate
        assert key.decode("utf-8") == article_id == article_id.strip() != ""
        assert all(ch.isprintable() or ch == " " or not ch.isascii() for ch in article_id)
