"""The spelling oracle: Hunspell's dictionaries, as the project's set-up installs them."""

from __future__ import annotations

from pathlib import Path

import pytest

from article_runtime.text import spelling
from article_runtime.text.spelling import speller_for

LISTED = Path(__file__).resolve().parents[2] / "debian-packages.txt"


def test_every_language_the_set_up_lists_has_a_speller() -> None:
    """debian-packages.txt names hunspell-<lang>[-<region>]; each language must load."""
    names = [line.split("#", 1)[0].strip() for line in LISTED.read_text().splitlines()]
    languages = {n.split("-")[1] for n in names if n.startswith("hunspell-")}
    assert {"en", "pt", "es", "fr", "de"} <= languages
    missing = sorted(lang for lang in languages if speller_for(lang) is None)
    assert missing == [], f"installed by make? {missing}"


def test_regional_variants_are_one_language() -> None:
    en, pt = speller_for("en-GB"), speller_for("pt_BR")
    assert en is not None and pt is not None
    assert {d.name for d in en.dictionaries} == {"en_GB", "en_US"}
    assert {d.name for d in pt.dictionaries} == {"pt_BR", "pt_PT"}
    assert en.is_word("colour") and en.is_word("color")  # no variant is a typo of another


def test_rare_words_are_words_and_common_misspellings_are_not() -> None:
    en = speller_for("en")
    assert en is not None
    assert en.is_word("moot") and en.is_word("skein")
    assert not en.knows("definately") and not en.knows("accomodate")
    assert en.knows("johnson") and not en.is_word("johnson")  # a name written small
    assert en.fixes("definately", "definitely", lambda: None)
    assert not en.fixes("hoise", "noise", lambda: None)  # Hunspell makes it "house"


def test_a_dictionary_in_another_encoding_reads_and_writes_its_own() -> None:
    """pl_PL is ISO 8859-2: suggestions come back as Polish, not Latin-1 mojibake."""
    pl = speller_for("pl")
    assert pl is not None
    assert pl.is_word("rząd")
    assert pl.fixes("rzadu", "rządu", lambda: None)
    assert not pl.is_word("日本")  # not writable in the dictionary's encoding: no word


def test_each_suggestion_lookup_is_charged() -> None:
    en = speller_for("en")
    assert en is not None
    charged: list[int] = []
    en.fixes("definately", "definitely", lambda: charged.append(1))
    en.fixes("definately", "definitely", lambda: charged.append(1))  # cached, charged again
    assert len(charged) == 2


def test_a_language_without_a_dictionary_has_no_speller(monkeypatch: pytest.MonkeyPatch) -> None:
    assert speller_for("fi") is None
    assert speller_for(None) is None
    assert speller_for("") is None
    speller_for.cache_clear()
    monkeypatch.setattr(spelling, "DICTIONARY_DIRS", (Path("/nonexistent"),))
    try:
        assert speller_for("en") is None
    finally:
        speller_for.cache_clear()
