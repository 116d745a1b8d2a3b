"""Typed data that crosses module boundaries. Mirrors the JSON Schemas in ``schemas/json``."""

from article_runtime.model.article import (
    AssembledArticle,
    HarnessReport,
    Hashes,
    PromptRef,
    RepairDecision,
    RepairLog,
    StepOutcome,
)
from article_runtime.model.attempts import AttemptRecord, Usage
from article_runtime.model.candidates import (
    Block,
    BlockType,
    CandidateSet,
    Decisions,
    FeedMetadata,
    ImageCandidate,
    LinkCandidate,
    MetadataCandidate,
    MetadataCandidates,
)
from article_runtime.model.proposal import (
    REMOVAL_REASONS,
    REPAIR_CATEGORIES,
    HygieneProposal,
    RemovedBlockReason,
    Repair,
)

__all__ = [
    "REMOVAL_REASONS",
    "REPAIR_CATEGORIES",
    "AssembledArticle",
    "AttemptRecord",
    "Block",
    "BlockType",
    "CandidateSet",
    "Decisions",
    "FeedMetadata",
    "HarnessReport",
    "Hashes",
    "HygieneProposal",
    "ImageCandidate",
    "LinkCandidate",
    "MetadataCandidate",
    "MetadataCandidates",
    "PromptRef",
    "RemovedBlockReason",
    "Repair",
    "RepairDecision",
    "RepairLog",
    "StepOutcome",
    "Usage",
]
