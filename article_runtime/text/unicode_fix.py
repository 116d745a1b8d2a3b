"""The one text a ``unicode`` repair may produce: NFC with invisible debris removed.

Deterministic, so the harness compares the model's replacement with it instead of judging a
"cleaner" text: nothing is added (no bidi control, tag, control, compatibility form), no letter
changes script, and presentational forms (ﬁ, fullwidth, Arabic contextual forms) stay as the page
wrote them. NFC runs after the removal so a combining mark cut off by debris composes again.
"""

from __future__ import annotations

from article_runtime.text.chars import is_invisible_junk
from article_runtime.text.segments import nfc

__all__ = ["unicode_fix"]


def unicode_fix(text: str) -> str:
    return nfc("".join(ch for ch in text if not is_invisible_junk(ch)))
