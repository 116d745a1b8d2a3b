"""What the harness hands back: the assembled article plus the record of every decision."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from article_runtime.model.attempts import AttemptRecord, Usage
from article_runtime.model.base import Frozen
from article_runtime.model.proposal import RemovedBlockReason

Path = Literal["primary", "fallback", "deterministic"]
Outcome = Literal["passed", "failed", "skipped"]


class StepOutcome(Frozen):
    """One of the ten validations of spec 8.1, in order."""

    step: int
    name: str
    outcome: Outcome
    reason: str | None = None
    detail: str | None = None


class RepairDecision(Frozen):
    target_id: str
    original: str
    replacement: str
    category: str
    decision: Literal["applied", "rejected"]
    reason: str
    justification: str | None = None  # the model's own words, kept for the decision log (8.2)


class RepairLog(Frozen):
    applied: list[RepairDecision] = Field(default_factory=list)
    rejected: list[RepairDecision] = Field(default_factory=list)


class HarnessReport(Frozen):
    valid: bool
    reason: str | None = None
    steps: list[StepOutcome]
    removed_blocks: list[RemovedBlockReason] = Field(default_factory=list)  # spec 6.4


class Hashes(Frozen):
    markdown: str
    source_html: str
    candidate_set: str


class PromptRef(Frozen):
    """Which prompt artefact produced an answer: name, version and file hash (spec 4)."""

    name: str
    version: str
    sha256: str


class AssembledArticle(Frozen):
    source: str
    title: str
    subtitle: str | None
    author: str | None
    published_at: str | None
    source_url: str | None
    language: str | None
    markdown: str
    path: Path
    repairs: RepairLog
    hashes: Hashes
    harness: HarnessReport
    attempts: list[AttemptRecord] = Field(default_factory=list)
    usage: Usage = Usage()
    prompt: PromptRef | None = None  # the prompt behind the answer assembled (None: no model's)
