"""The hygiene proposal: the model's structured answer (spec 6.4, 7.2, 7.3).

IDs and tiny repairs only. No field can hold Markdown or body text.
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import Field

from article_runtime.model.base import Frozen

RepairCategory = Literal["encoding", "unicode", "spacing", "punctuation_corruption", "obvious_typo"]
REPAIR_CATEGORIES: tuple[str, ...] = get_args(RepairCategory)

RemovalReason = Literal[
    "advertising",
    "recommendation",
    "navigation",
    "newsletter",
    "player_interface",
    "duplicate",
    "non_editorial",
]
REMOVAL_REASONS: tuple[str, ...] = get_args(RemovalReason)


class Repair(Frozen):
    target_id: str
    original: str = Field(min_length=1)
    replacement: str
    category: RepairCategory
    justification: str


class RemovedBlockReason(Frozen):
    block_id: str
    reason: RemovalReason


class HygieneProposal(Frozen):
    title_candidate_id: str
    subtitle_candidate_id: str | None
    author_candidate_id: str | None
    kept_block_ids: list[str]
    kept_link_ids: list[str]
    kept_image_ids: list[str]
    repairs: list[Repair]
    removed_block_reasons: list[RemovedBlockReason] | None = None
