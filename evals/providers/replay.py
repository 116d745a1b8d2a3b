"""Offline provider: replays ``answers/<prompt>/<case>.json`` instead of calling a model.

It still parses the rendered messages, so a prompt that fails to render fails here too.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # Promptfoo loads providers by path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from evals.answers_store import answer_text, load_answer


def call_api(prompt: str, options: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
    messages = json.loads(prompt)
    if not isinstance(messages, list) or not messages:
        return {"error": "the prompt did not render to a message list"}
    suite = str(options.get("config", {}).get("prompt", ""))
    stored = load_answer(suite, str(context["vars"]["answer"]))
    usage = stored.get("usage", {})
    return {
        "output": answer_text(stored),
        "cost": float(stored.get("cost", 0.0)),
        "tokenUsage": {
            "prompt": int(usage.get("prompt", 0)),
            "completion": int(usage.get("completion", 0)),
            "total": int(usage.get("prompt", 0)) + int(usage.get("completion", 0)),
        },
        "metadata": {"origin": stored.get("origin")},
    }
