"""The deterministic path on the non-English samples: required segments in, forbidden ones out.

Segments come from ``shared/samples-multilingual/evaldata.json`` (labelled by the trafilatura
project), never from our own output.
"""

from __future__ import annotations

import json
from pathlib import Path

from article_runtime.extract import extract_article
from article_runtime.harness.markdown import plain_text
from tests.conftest import SAMPLES


def _cases(shared: Path) -> list[tuple[str, str, list[str], list[str]]]:
    """(file, url, required segments, forbidden segments) for each bundled sample."""
    data = json.loads((shared / "samples-multilingual" / "evaldata.json").read_text())
    return [
        (v["file"], url, v["with"], v["without"])
        for url, v in data.items()
        if (SAMPLES / v["file"]).exists()
    ]


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_required_segments_present_and_forbidden_absent(shared_dir: Path) -> None:
    cases = _cases(shared_dir)
    assert len(cases) >= 4
    misses: list[str] = []
    for name, url, required, forbidden in cases:
        article = extract_article((SAMPLES / name).read_bytes(), source=name, url=url)
        body = _flat(plain_text(article.markdown))
        misses += [f"{name}: missing {s!r}" for s in required if _flat(s) not in body]
        misses += [f"{name}: kept {s!r}" for s in forbidden if _flat(s) in body]
    assert misses == []
