"""The one base for data that crosses module boundaries: immutable, and strict about fields."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Frozen(BaseModel):
    """Values, not objects: frozen so they can be shared, ``extra=forbid`` so nothing sneaks in."""

    model_config = ConfigDict(frozen=True, extra="forbid")
