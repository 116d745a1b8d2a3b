"""Where the suite's files live, resolved from this file so any working directory works."""

from __future__ import annotations

from pathlib import Path

EVALS = Path(__file__).resolve().parent
REPO = EVALS.parent
CASES = EVALS / "cases"  # <prompt>.yaml (the entries, written by people) and pages/
PAGES = CASES / "pages"
BUILT = EVALS / "built"  # <prompt>/<case>.json, derived from the entries by evals.tools.make_cases
ANSWERS = EVALS / "answers"  # <prompt>/<case>--<variant>.json, the stored answers replayed offline
STATE = EVALS / ".promptfoo"  # PROMPTFOO_CONFIG_DIR (evals/.env), configs and outputs (gitignored)
HYGIENE = "article_content_hygiene"
ENRICHMENT = "article_sentiment_tags"
PROMPTS = (HYGIENE, ENRICHMENT)
ENTRY = {HYGIENE: "hygiene", ENRICHMENT: "enrichment"}  # function names in prompts.py, entry.py


def config_path(prompt: str) -> Path:
    """The suite named by the prompt file's ``promptfoo:`` field."""
    return EVALS / f"{prompt}.yaml"


def entries_path(prompt: str) -> Path:
    return CASES / f"{prompt}.yaml"


def built_path(prompt: str, name: str) -> Path:
    return BUILT / prompt / f"{name}.json"
