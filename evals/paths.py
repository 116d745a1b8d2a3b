"""Where the suite's files live, resolved from this file so any working directory works."""

from __future__ import annotations

from pathlib import Path

EVALS = Path(__file__).resolve().parent
REPO = EVALS.parent
SHARED = REPO.parent / "shared"
CASES = EVALS / "cases"
PAGES = CASES / "pages"
ANSWERS = EVALS / "answers"
STATE = EVALS / ".promptfoo"  # PROMPTFOO_CONFIG_DIR, generated configs and outputs (gitignored)
HYGIENE = "article_content_hygiene"
ENRICHMENT = "article_sentiment_tags"
PROMPTS = (HYGIENE, ENRICHMENT)


def config_path(prompt: str) -> Path:
    """The suite named by the prompt file's ``promptfoo:`` field."""
    return EVALS / f"{prompt}.yaml"
