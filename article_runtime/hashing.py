"""Content hashes: consumers deduplicate on them, so they must be stable across runs."""

from __future__ import annotations

import hashlib

from pydantic import BaseModel


def sha256_hex(data: bytes | str) -> str:
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return hashlib.sha256(raw).hexdigest()


def model_hash(model: BaseModel) -> str:
    """Hash of a model's JSON: fields in declaration order, no insignificant whitespace.

    Stable for a given model version (pydantic serializes in Rust, ~10x the stdlib's speed);
    a field change in the model is a contract change and changes the hash, as it should.
    """
    return sha256_hex(model.model_dump_json())
