"""Markdown escaping keeps article text literal; grounding catches invented words and URLs."""

from __future__ import annotations

from article_runtime.harness import markdown as md
from article_runtime.harness.grounding import UNGROUNDED_URL, UNGROUNDED_WORD, check_grounding


def test_text_that_looks_like_markdown_is_escaped() -> None:
    assert md.escape_text("# not a heading") == "\\# not a heading"
    assert md.escape_text("1. not a list") == "1\\. not a list"
    assert md.escape_text("a *b* [c](d)") == "a \\*b\\* \\[c\\](d)"
    assert md.escape_text("- dash") == "\\- dash"


def test_urls_cannot_close_a_link_early() -> None:
    assert md.link("x", "https://e.org/a (b)") == "[x](https://e.org/a%20%28b%29)"


def test_code_fence_outgrows_backticks_inside() -> None:
    assert md.code("a ```b``` c") == "````\na ```b``` c\n````"


def test_table_pads_rows_and_escapes_pipes() -> None:
    assert md.table([["A", "B"], ["1|2"]]) == "| A | B |\n| --- | --- |\n| 1\\|2 |  |"


def test_grounded_markdown_passes() -> None:
    text = "Lula disse: *não* [sic] 3-1 東京"
    markdown = "## Título\n\n" + md.escape_text(text) + "\n\n" + md.link("aqui", "https://e.org/")
    assert check_grounding(markdown, ["Título", text, "aqui"], ["https://e.org/"]) is None


def test_invented_word_is_caught_in_any_script() -> None:
    assert check_grounding("Lula venceu", ["Lula perdeu"], []) == (UNGROUNDED_WORD, "venceu")
    assert check_grounding("東京 大阪", ["東京"], []) == (UNGROUNDED_WORD, "大阪")
    assert check_grounding("placar 3-2", ["placar 3-1"], []) == (UNGROUNDED_WORD, "2")


def test_foreign_url_is_caught_even_in_an_image() -> None:
    markdown = md.link("aqui", "https://e.org/") + "\n\n" + md.image("x", "https://evil.test/p.gif")
    assert check_grounding(markdown, ["aqui", "x"], ["https://e.org/"]) == (
        UNGROUNDED_URL,
        "https://evil.test/p.gif",
    )


def test_escaped_bracket_paren_is_text_not_a_link() -> None:
    text = "see ](https://evil.test) here"
    assert check_grounding(md.escape_text(text), [text], []) is None


def test_plain_text_keeps_escaped_brackets_and_drops_link_syntax() -> None:
    markdown = md.escape_text("a [b] c ") + md.link("d", "https://e.org/") + md.escape_text(", e")
    assert md.plain_text(markdown) == "a [b] c d, e"


def test_escaping_round_trips_for_tricky_text() -> None:
    """plain_text(escape_text(t)) == t for normalized one-line texts full of syntax characters."""
    import random

    alphabet = list("ab 1.#>-+=~*_[]()!\\`<>|é😀")
    rng = random.Random(7)
    for _ in range(2000):
        text = " ".join("".join(rng.choices(alphabet, k=rng.randint(1, 12))).split())
        if text:
            assert md.plain_text(md.escape_text(text)) == text, text
