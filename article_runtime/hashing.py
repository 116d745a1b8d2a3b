"""Content hashes: consumers deduplicate on them, so they must be stable across runs."""

from __future__ import annotations

import hashlib
import json

from pydantic import BaseModel


def sha256_hex(data: bytes | str) -> str:
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return hashlib.sha256(raw).hexdigest()


def model_hash(model: BaseModel) -> str:
    """Hash of a model's canonical JSON (sorted keys, no insignificant whitespace)."""
    canonical = json.dumps(
        model.model_dump(mode="json"), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    return sha256_hex(canonical)
