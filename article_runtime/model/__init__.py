"""Typed data that crosses module boundaries. Mirrors the JSON Schemas in ``schemas/json``."""

from article_runtime.model.article import (
    AssembledArticle,
    Attempt,
    HarnessReport,
    Hashes,
    RepairDecision,
    RepairLog,
    StepOutcome,
)
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
    "Attempt",
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
    "RemovedBlockReason",
    "Repair",
    "RepairDecision",
    "RepairLog",
    "StepOutcome",
]
