"""Unicode folding keeps content and drops only debris or presentation."""

import pytest

from article_runtime.text.fold import dirt, unicode_fold


@pytest.mark.parametrize(
    ("broken", "clean"),
    [
        ("cafe\u0301", "café"),
        ("infor\u00admação", "informação"),
        ("e\u200bxemplo", "exemplo"),
        ("ﬁm", "fim"),
        ("ﻣﺮﺣﺒﺎ", "مرحبا"),
        ("cafe\u0301\u0301", "café"),
        ("texto\ufffd", "texto"),
    ],
)
def test_broken_forms_fold_to_the_clean_text(broken: str, clean: str) -> None:
    assert unicode_fold(broken) == clean
    assert dirt(clean) == 0


@pytest.mark.parametrize(
    ("a", "b"),
    [("x²", "x2"), ("½", "1/2"), ("①", "1"), ("S\ufffdo", "São"), ("👨\u200d👩", "👨👩")],
)
def test_meaningful_differences_survive_folding(a: str, b: str) -> None:
    assert unicode_fold(a) != unicode_fold(b)
