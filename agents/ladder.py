"""The hygiene fallback ladder (spec 10): primary model, fallback model, deterministic path.

Pure decisions over one article's ladder state, which the assembly agent keeps in a table. The
state makes the ladder bounded (each rung once) and idempotent: a proposal for a rung already
judged, or for an article already settled, is a redelivery and changes nothing.

The state belongs to one version of the article (``agents.versions``) and holds only what the
next decision needs: the version, the page's HTML hash, the rung awaited, how it settled, and
the attempts so far while a rung is awaited (the outputs carry them; a settled ladder drops
them), and the number of the last request judged. A proposal of an older version is dropped;
a newer version starts a fresh ladder; a redrive (an operator's new attempt, numbered after
the last one) starts a fresh ladder for the same version once it has ended terminal.
"""

from __future__ import annotations

from typing import Any, Literal

from agents.versions import Version, compared

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


Gate = Literal["stale", "fresh", "held"]


def new_state(rung: Rung, version: Version | None, html_hash: str | None) -> dict[str, Any]:
    """The table value for a version whose ladder starts at ``rung`` (JSON-serialisable)."""
    return {
        "version": version,
        "html_hash": html_hash,
        "awaiting": rung,
        "settled": None,
        "attempts": [],
    }


def upgraded(state: dict[str, Any] | None) -> dict[str, Any] | None:
    """A state as this code writes it; states written before versions were carried kept the
    HTML hash under ``version``."""
    if state is None or "html_hash" in state:
        return state
    return {**state, "version": None, "html_hash": state.get("version")}


def gate(
    state: dict[str, Any] | None, version: Version | None, html_hash: str, attempt: int
) -> Gate:
    """What a proposal of ``version`` is to the ladder: stale (an older version: dropped),
    fresh (a newer version, or no ladder yet: a new ladder) or held (this ladder's version)."""
    if state is None:
        return "fresh"
    order = compared(version, state["version"])
    if order != "same":
        return "stale" if order == "older" else "fresh"
    if state["html_hash"] in (None, html_hash):
        return "held"
    # Unversioned records (written before versions were carried) of another page under the
    # same ID: its first rung starts afresh, late rungs of the page it replaced are dropped.
    return "fresh" if attempt == 1 else "stale"


def reopens(state: dict[str, Any] | None, attempt: int) -> bool:
    """True when a proposal numbered ``attempt`` is a redrive of this version's terminal
    ladder: an operator asked for a new attempt (``streams.redrive``), numbered after every
    attempt the ladder judged. A redelivered proposal of the ladder's own run never is."""
    if state is None or not str(state.get("settled") or "").startswith("terminal:"):
        return False
    return attempt > int(state.get("attempt") or len(RUNGS))


def is_redelivery(state: dict[str, Any] | None, rung: Rung) -> bool:
    """True when a proposal for ``rung`` has nothing left to decide."""
    return state is not None and state["awaiting"] != rung  # settled: awaiting nothing


def advanced(
    state: dict[str, Any],
    rung: Rung,
    attempts: list[dict[str, Any]],
    *,
    next_: Rung | None,
    settled: str | None,
    attempt: int | None = None,
) -> dict[str, Any]:
    """The state after judging ``rung`` (request number ``attempt``): the next rung awaited,
    or the version settled (its attempts are on the output, so a settled state keeps none).
    The number judged last is kept: a redrive's attempts come after it (``reopens``)."""
    after = {
        **state,
        "awaiting": next_ if settled is None else None,
        "settled": settled,
        "attempts": [] if settled else [*state["attempts"], *attempts],
    }
    return after if attempt is None else {**after, "attempt": attempt}


def closed(version: Version, reason: str) -> dict[str, Any]:
    """The state of a version that ended before its ladder began (its page was unusable)."""
    return {
        **new_state("runtime_primary", version, None),
        "awaiting": None,
        "settled": f"terminal:{reason}",
    }
