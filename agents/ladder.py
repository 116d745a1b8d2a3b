"""The hygiene fallback ladder (spec 10): primary model, fallback model, deterministic path.

Pure decisions over one article's ladder state, which the assembly agent keeps in a table. The
state makes the ladder bounded (each rung once) and idempotent: a proposal for a rung already
judged, or for an article already settled, is a redelivery and changes nothing.
"""

from __future__ import annotations

from typing import Any, Literal

Rung = Literal["runtime_primary", "runtime_fallback", "deterministic"]
RUNGS: tuple[Rung, ...] = ("runtime_primary", "runtime_fallback", "deterministic")
MODEL_RUNGS: tuple[Rung, ...] = ("runtime_primary", "runtime_fallback")


def first_rung(has_models: bool) -> Rung:
    return "runtime_primary" if has_models else "deterministic"


def next_rung(rung: Rung, has_models: bool) -> Rung | None:
    """The rung after ``rung``, skipping model rungs when no provider is configured."""
    later = RUNGS[RUNGS.index(rung) + 1 :]
    for candidate in later:
        if has_models or candidate not in MODEL_RUNGS:
            return candidate
    return None


def new_state(rung: Rung) -> dict[str, Any]:
    """The table value for an article whose ladder starts at ``rung`` (JSON-serialisable)."""
    return {"awaiting": rung, "settled": None, "attempts": []}


def is_redelivery(state: dict[str, Any] | None, rung: Rung) -> bool:
    """True when a proposal for ``rung`` has nothing left to decide."""
    return state is not None and state["awaiting"] != rung  # settled: awaiting nothing


def advanced(
    state: dict[str, Any] | None,
    rung: Rung,
    attempts: list[dict[str, Any]],
    *,
    next_: Rung | None,
    settled: str | None,
) -> dict[str, Any]:
    """The state after judging ``rung``: the next rung awaited, or the article settled."""
    before = state or new_state(rung)
    return {
        "awaiting": next_ if settled is None else None,
        "settled": settled,
        "attempts": [*before["attempts"], *attempts],
    }
