"""Promptfoo prompt functions: the runtime's own loader and renderer, nothing re-templated.

Promptfoo sends the returned message list to the provider as JSON text; the providers parse
it back, so the model receives exactly ``hygiene_messages`` / ``enrichment_messages``. The
rendering itself runs in the warm process when the runner serves one (``evals.warm``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # Promptfoo loads this file by path: make ``evals`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evals import warm
from evals.paths import ENRICHMENT, HYGIENE

Messages = list[dict[str, str]]


def runtime_messages(prompt: str, name: str) -> Messages:
    """What the runtime would send for case ``name`` of suite ``prompt``."""
    from article_runtime.llm.prompts import load_prompt
    from article_runtime.llm.render import enrichment_messages, hygiene_messages
    from evals.cases import candidate_set, enrichment_input, load_case

    case = load_case(prompt, name)
    spec = load_prompt(prompt)
    if prompt == HYGIENE:
        return hygiene_messages(spec, candidate_set(case))
    return enrichment_messages(spec, enrichment_input(case))


def hygiene(context: dict[str, Any]) -> Messages:
    messages: Messages = warm.call("render", HYGIENE, str(context["vars"]["input"]))
    return messages


def enrichment(context: dict[str, Any]) -> Messages:
    messages: Messages = warm.call("render", ENRICHMENT, str(context["vars"]["input"]))
    return messages
