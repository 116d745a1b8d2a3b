"""The prompt registry: prompts are versioned files, loaded, checked and hashed here.

A malformed prompt, a missing schema or an uncertified model stops the runtime at start-up
(``ContractError``), never mid-stream. The same files serve Promptfoo (spec 4, 11.1).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from typing import Any

import yaml

from article_runtime import contracts
from article_runtime.errors import ContractError
from article_runtime.model import PromptRef
from article_runtime.resources import PROMPT_DIR

PROMPT_NAMES = ("article_content_hygiene", "article_sentiment_tags")
COMMON_RULE_COUNT = 10  # spec 3
_TEXT_FIELDS = ("responsibility", "output_instructions", "context_instructions", "final_request")


@dataclass(frozen=True, slots=True)
class PromptSpec:
    name: str
    version: str
    sha256: str
    input_schema: str
    output_schema: str
    promptfoo: str
    certified_models: tuple[str, ...]
    common_rules: tuple[str, ...]
    responsibility: str
    output_instructions: str
    context_instructions: str
    final_request: str

    @property
    def ref(self) -> PromptRef:
        """The identity outputs carry: name, version and file hash (spec 4)."""
        return PromptRef(name=self.name, version=self.version, sha256=self.sha256)

    @property
    def schema_version(self) -> str:
        return str(contracts.load_schema(self.output_schema).get("version", "unversioned"))

    def require_certified(self, model: str) -> None:
        """Raises ContractError unless ``model`` is on this prompt's certified cheap list."""
        if model not in self.certified_models:
            raise ContractError(
                "uncertified_model", f"{model!r} is not certified for prompt {self.name}"
            )


def _malformed(name: str, why: str) -> ContractError:
    return ContractError("malformed_prompt", f"{name}: {why}")


def _semver(version: object) -> bool:
    parts = str(version).split(".")
    return len(parts) == 3 and all(p.isdigit() for p in parts)


def _rules(name: str, raw: object) -> tuple[str, ...]:
    if not isinstance(raw, list) or len(raw) != COMMON_RULE_COUNT:
        raise _malformed(name, f"common_rules must list the {COMMON_RULE_COUNT} rules of spec 3")
    texts = []
    for expected_id, rule in enumerate(raw, start=1):
        if not isinstance(rule, dict) or rule.get("id") != expected_id or not rule.get("text"):
            raise _malformed(name, f"common rule {expected_id} is missing or out of order")
        texts.append(str(rule["text"]).strip())
    return tuple(texts)


def parse_prompt(name: str, raw: bytes) -> PromptSpec:
    """Check one prompt file's content; pure, so tests can feed it broken files."""
    try:
        data: Any = yaml.safe_load(raw)
    except yaml.YAMLError as exc:
        raise _malformed(name, f"not YAML: {exc}") from exc
    if not isinstance(data, dict) or data.get("name") != name:
        raise _malformed(name, "the file's name field must equal the prompt name")
    if not _semver(data.get("version")):
        raise _malformed(name, "version must be semantic (MAJOR.MINOR.PATCH)")
    for field in _TEXT_FIELDS:
        if not isinstance(data.get(field), str) or not data[field].strip():
            raise _malformed(name, f"{field} must be non-empty text")
    models = data.get("certified_models")
    if not isinstance(models, list) or not models or not all(isinstance(m, str) for m in models):
        raise _malformed(name, "certified_models must list at least one model")
    for schema in (data.get("input_schema"), data.get("output_schema")):
        contracts.load_schema(str(schema))  # raises ContractError when missing or malformed
    return PromptSpec(
        name=name,
        version=str(data["version"]),
        sha256=hashlib.sha256(raw).hexdigest(),
        input_schema=str(data["input_schema"]),
        output_schema=str(data["output_schema"]),
        promptfoo=str(data.get("promptfoo", "")),
        certified_models=tuple(models),
        common_rules=_rules(name, data.get("common_rules")),
        **{field: data[field].strip() for field in _TEXT_FIELDS},
    )


@cache
def load_prompt(name: str) -> PromptSpec:
    """The prompt ``name`` from ``prompts/``, checked and hashed (cached per process)."""
    if name not in PROMPT_NAMES:
        raise ContractError("unknown_prompt", name)
    path = PROMPT_DIR / f"{name}.yaml"
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ContractError("missing_prompt", str(path)) from exc
    return parse_prompt(name, raw)
