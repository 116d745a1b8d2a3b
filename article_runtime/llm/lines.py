"""Article text on one line of a model's context: as written, or as a JSON string.

Both calls' data is one item a line, each opening with an ID or a fixed word. A text that
holds a line break would start a line of its own (a fake ``p9: ...`` or ``# Rules``), and one
that opens with a quote mark would read as a JSON string, so both are written as JSON strings.
The fence (``llm.fence``) escapes the line breaks ``str.splitlines`` knows besides ``\\n``.
"""

from __future__ import annotations

import json

__all__ = ["line_text"]


def line_text(text: str) -> str:
    """``text`` as it stands, or as a JSON string when a line break is in it or it opens
    with a quote mark."""
    if "\n" in text or text.startswith('"'):
        return json.dumps(text, ensure_ascii=False)
    return text
