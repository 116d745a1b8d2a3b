"""What two strings share once broken Unicode is cleaned: the test behind a ``unicode`` repair.

Folding removes invisible debris, splits presentational compatibility forms (ﬁ, fullwidth,
Arabic contextual forms) and collapses a doubled combining mark. It never applies NFKC to
superscripts, fractions or circled forms: ``x²`` and ``x2`` must stay different.
"""

from __future__ import annotations

import icu

from article_runtime.text.chars import is_combining_mark, is_presentational_compat, is_removable
from article_runtime.text.segments import nfc

_NFD = icu.Normalizer2.getNFDInstance()
_NFKD = icu.Normalizer2.getNFKDInstance()


def _nfd(text: str) -> str:
    return str(_NFD.normalize(text))


def unicode_fold(text: str) -> str:
    """NFC of ``text`` with removable characters dropped and presentational forms unfolded."""
    out: list[str] = []
    for ch in _nfd(text):
        if is_removable(ch):
            continue
        if is_presentational_compat(ch):
            out.extend(str(_NFKD.normalize(ch)))
            continue
        if out and is_combining_mark(ch) and out[-1] == ch:
            continue  # a doubled mark (e + ´ + ´) is a broken sequence, not an extra accent
        out.append(ch)
    return nfc("".join(out))


def dirt(text: str) -> int:
    """How many characters folding would remove or unfold; a fix must lower this or fix NFC."""
    return sum(1 for ch in text if is_removable(ch) or is_presentational_compat(ch))
