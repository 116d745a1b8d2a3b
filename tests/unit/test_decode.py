"""decode_html: every charset trap real pages set, and every input it must refuse."""

from __future__ import annotations

import contextlib
import gzip
import random
from collections.abc import Callable

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from article_runtime.candidates.decode import MAX_HTML_BYTES, decode_html
from article_runtime.errors import InputError

PT = "Olá, coração! Ação rápida, informações e opinião pública em São Paulo."
PAGE = "<html><head>{head}</head><body><p>" + PT + "</p></body></html>"


def page(head: str = "") -> str:
    return PAGE.format(head=head)


def test_utf8_without_declaration() -> None:
    assert PT in decode_html(page().encode("utf-8"))


def test_str_passes_through() -> None:
    assert decode_html(page()) == page()


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"\xef\xbb\xbf" + page().encode("utf-8"), page()),
        (page().encode("utf-16"), page()),  # Python writes a BOM
        (b"\xfe\xff" + page().encode("utf-16-be"), page()),
        (page().encode("utf-32"), page()),
    ],
)
def test_bom_wins_and_is_dropped(data: bytes, expected: str) -> None:
    assert decode_html(data) == expected


def test_utf16_without_bom() -> None:
    assert PT in decode_html(page().encode("utf-16-le"))
    assert PT in decode_html(page().encode("utf-16-be"))


def test_declared_cp1252_is_used() -> None:
    html = page('<meta charset="windows-1252">')
    assert PT in decode_html(html.encode("cp1252"))


def test_http_equiv_declaration_is_used() -> None:
    html = page('<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">')
    text = "Smart quotes “here” and a euro € sign"
    assert text in decode_html(html.replace(PT, text).encode("cp1252"))


def test_latin1_declared_but_utf8_actual() -> None:
    html = page('<meta charset="iso-8859-1">')
    assert PT in decode_html(html.encode("utf-8"))


def test_utf8_declared_but_cp1252_actual() -> None:
    html = page('<meta charset="utf-8">')
    assert PT in decode_html(html.encode("cp1252"))


# Letters outside ASCII that windows-1252 can write: the stray bytes of a UTF-8 page.
_LATIN1_LETTERS = st.characters(min_codepoint=0xC0, max_codepoint=0xFF).filter(str.isalpha)
_WORDS = st.lists(
    st.text(st.characters(min_codepoint=0x61, max_codepoint=0x7A) | _LATIN1_LETTERS, min_size=1),
    min_size=1,
    max_size=30,
)


@settings(max_examples=200, deadline=None)
@given(utf8=_WORDS, stray=_WORDS, order=st.randoms(use_true_random=False))
def test_utf8_page_with_a_few_legacy_bytes_keeps_both(
    utf8: list[str], stray: list[str], order: random.Random
) -> None:
    """A UTF-8 page holding words written in windows-1252 (fewer of their letters than the
    page's own non-ASCII letters): every word reads right, the page's and the stray ones."""
    valid = sum(ch > "\x7f" for word in utf8 for ch in word)
    strays = sum(ch > "\x7f" for word in stray for ch in word)
    assume(strays < valid)
    pieces = [(w, w.encode("utf-8")) for w in utf8] + [(w, w.encode("cp1252")) for w in stray]
    order.shuffle(pieces)
    head = b'<html><head><meta charset="utf-8"></head><body><p>'
    decoded = decode_html(head + b" ".join(raw for _, raw in pieces) + b"</p></body></html>")
    assert " ".join(word for word, _ in pieces) in decoded


def test_undeclared_cyrillic_cp1251() -> None:
    text = "Привет, как дела? Это тестовая страница на русском языке, совсем обычная."
    assert text in decode_html(page().replace(PT, text).encode("cp1251"))


def test_declared_shift_jis() -> None:
    text = "東京で新しい展覧会が始まりました。多くの人が訪れています。"
    html = page('<meta charset="shift_jis">').replace(PT, text)
    assert text in decode_html(html.encode("shift_jis"))


def test_gzip_body_is_inflated() -> None:
    assert PT in decode_html(gzip.compress(page().encode("utf-8")))


def test_gzip_bomb_is_refused_without_inflating_it_all() -> None:
    bomb = gzip.compress(b"<p>" + b"a" * (MAX_HTML_BYTES + 10))
    assert len(bomb) < MAX_HTML_BYTES // 100
    with pytest.raises(InputError) as info:
        decode_html(bomb)
    assert info.value.reason == "html_too_large"


def test_corrupt_gzip_is_refused() -> None:
    with pytest.raises(InputError) as info:
        decode_html(b"\x1f\x8b\x08\x00garbage that is not deflate")
    assert info.value.reason == "corrupt_gzip"


@pytest.mark.parametrize("data", [b"<p>" + b"x" * MAX_HTML_BYTES, "<p>" + "x" * MAX_HTML_BYTES])
def test_oversized_input(data: bytes | str) -> None:
    with pytest.raises(InputError) as info:
        decode_html(data)
    assert info.value.reason == "html_too_large"


@pytest.mark.parametrize("data", [b"", b" \n\t ", "", "   ", b"\xef\xbb\xbf  "])
def test_empty_input(data: bytes | str) -> None:
    with pytest.raises(InputError) as info:
        decode_html(data)
    assert info.value.reason == "empty_html"


PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06\x00\x00\x00"
PDF = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n"


@pytest.mark.parametrize(
    "data",
    [PNG, PDF, bytes(range(256)) * 8, b"\x00\x01\x02\x03" * 500, b"\x00" * 1000],
)
def test_binary_is_not_html(data: bytes) -> None:
    with pytest.raises(InputError) as info:
        decode_html(data)
    assert info.value.reason == "not_html"


def test_control_characters_in_str_are_not_html() -> None:
    with pytest.raises(InputError) as info:
        decode_html("\x01\x02\x03\x04" * 100)
    assert info.value.reason == "not_html"


CAFE_PAGE = "<html><body><p>Caf\xe9 na esquina, p\xe3o quente e conversa.</p></body></html>"


@pytest.mark.parametrize(
    "label", ["base64", "rot13", "zlib", "hex", "uu", "idna", "punycode", "unicode_escape",
              "raw-unicode-escape", "utf-7", "undefined", "x-no-such-charset"]
)  # fmt: skip
def test_a_charset_that_is_no_web_encoding_is_ignored(label: str) -> None:
    raw = f"<meta charset={label}>{CAFE_PAGE}".encode("cp1252")
    assert "Café na esquina, pão quente" in decode_html(raw)


@given(st.text(alphabet=st.characters(max_codepoint=0x7F), max_size=40))
def test_any_declared_label_decodes_or_is_ignored(label: str) -> None:
    raw = f'<meta charset="{label}">{CAFE_PAGE}'.encode("cp1252")
    with contextlib.suppress(InputError):  # never LookupError, UnicodeError or the like
        decode_html(raw)


def test_every_gzip_member_is_read() -> None:
    body = gzip.compress(b"<p>first half</p>") + gzip.compress(b"<p>second half</p>")
    assert decode_html(body + b"\x00" * 16) == "<p>first half</p><p>second half</p>"


@pytest.mark.parametrize(
    "damage",
    [
        lambda z: z[: len(z) // 2],  # truncated download
        lambda z: z[:-8] + b"\x00" * 8,  # CRC and size zeroed
        lambda z: z + b"trailing garbage",
        lambda z: z + z[:20],  # a second member cut short
    ],
    ids=["truncated", "bad-crc", "garbage-after", "second-member-cut"],
)
def test_a_damaged_gzip_is_refused_whole(damage: Callable[[bytes], bytes]) -> None:
    whole = gzip.compress(("<p>" + "A full article paragraph. " * 200 + "</p>").encode())
    with pytest.raises(InputError) as info:
        decode_html(damage(whole))
    assert info.value.reason == "corrupt_gzip"


@settings(max_examples=300)
@given(st.integers(min_value=2, max_value=400), st.binary(max_size=8))
def test_any_cut_of_a_gzip_is_refused_or_whole(cut: int, tail: bytes) -> None:
    text = "<p>" + "A full article paragraph. " * 40 + "</p>"
    whole = gzip.compress(text.encode())
    damaged = whole[:cut] + tail
    try:
        assert decode_html(damaged) == text
    except InputError as exc:
        assert exc.reason in ("corrupt_gzip", "empty_html", "not_html")
