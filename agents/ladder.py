"""The hygiene fallback ladder (spec 10) across two agents: which rung runs, and when again.

The hygiene agent ends each model rung on ``article.proposal`` (the answer verbatim, or none);
the assembly agent (``article_runtime.agents.assembly``) judges it and assembles the article, or
sends the ladder to its next rung: a fallback event that the hygiene agent takes to ask the fallback
model, or the deterministic path, which the assembly agent runs at once.

A paid answer is written to the ladder's state (the ``hygiene_ladder`` table, written by the
hygiene agent only) and confirmed by the broker before its proposal is produced. An input the
hygiene agent gets again (a redelivered page or fallback event, after a crash or a rebalance)
whose rung the state already holds publishes that rung's proposal again instead of asking
the model a second time; a proposal on the topic is judged again by whoever owns its
partition next. Pure decisions here, over one article's state:

- ``passage``: what one hygiene input (a ``Rung`` of one ladder of one version) is to the
  state: ``stale`` (an older version, another ladder, nothing left to do: dropped),
  ``replay`` (its rung's answer is held: its proposal is produced again; for an unusable page,
  its terminal event) or ``run`` (ask the model, or for the deterministic rung, propose);
- ``proposed``: the state after a rung ended (its answer, attempts, prompt, candidate set hash);
- ``superseded``: whether the state has moved past a proposal (the assembly agent drops it):
  the newest version wins.

The state belongs to one version of the article (``article_runtime.agents.versions``) and one
ladder: a first pass, or the ladder an operator's redrive started (``redrive``: that event's
offset). Rungs are numbered from 1 in a first pass; a redrive numbers its rungs after the ladder it
reopens.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from article_runtime.agents.versions import Version, compared
from article_runtime.model import AttemptRecord, PromptRef
from article_runtime.streams.kafka.topics import ARTICLE_COMPENSATION
from article_runtime.streams.service.compensation import RUNGS, NextAttempt, compensation_event
from article_runtime.streams.service.records import attempt_records
from article_runtime.streams.service.wiring import Emit

Rung = NextAttempt
MODEL_RUNGS: tuple[Rung, ...] = ("runtime_primary", "runtime_fallback")
Passage = Literal["stale", "replay", "run"]


def rungs(has_models: bool) -> tuple[Rung, ...]:
    """The ladder's rungs in order; without providers, the deterministic path alone."""
    return RUNGS if has_models else ("deterministic",)


def next_rung(rung: Rung, has_models: bool) -> Rung | None:
    """The rung after ``rung``, skipping model rungs when no provider is configured."""
    later = [r for r in RUNGS[RUNGS.index(rung) + 1 :] if r in rungs(has_models)]
    return later[0] if later else None


@dataclass(frozen=True)
class Step:
    """What one hygiene input asks for: a rung of one ladder of one article version.

    ``fresh``: the input starts a ladder (an ingested page, an operator's redrive); a fallback
    event continues one. ``ladder``: the redrive event's offset, None for a first pass."""

    version: Version | None
    html_hash: str | None
    rung: Rung
    number: int
    ladder: int | None = None
    fresh: bool = True


def passage(state: dict[str, Any] | None, step: Step) -> Passage:
    """What ``step`` is to the article's ladder state."""
    state = upgraded(state)
    if state is None:
        return "run"
    order = compared(step.version, state["version"])
    if order != "same":
        return "stale" if order == "older" else "run"
    if state["html_hash"] not in (None, step.html_hash) and step.html_hash is not None:
        # Unversioned records (written before versions were carried) of another page under
        # the same ID: the page starts afresh; anything else about the page it replaced is
        # dropped.
        return "run" if step.fresh and step.ladder is None else "stale"
    if state["proposed"] is None:
        # A state of an earlier release (one stage, or before): its outputs were produced by
        # that release; only a redrive of its terminal ladder runs again.
        if step.ladder is None or not step.fresh:
            return "stale"
        return "run" if step.number > int(state["attempt"]) else "stale"
    if is_closed(state):
        return "replay" if step.fresh and step.ladder is None else "stale"
    if state["redrive"] == step.ladder:
        return "replay" if step.rung in state["proposed"] else "run"
    if step.fresh and step.ladder is not None and step.number > int(state["attempt"]):
        return "run"  # an operator's redrive reopens the version's ladder
    return "stale"


def superseded(state: dict[str, Any] | None, proposal: dict[str, Any]) -> bool:
    """Whether the hygiene agent has moved past ``proposal``'s ladder: a newer version (or an
    unusable newer page), another page under the same ID, or a redrive's new ladder."""
    state = upgraded(state)
    if state is None:
        return False
    order = compared(proposal.get("version"), state["version"])
    if order != "same":
        return order == "older"
    if state["html_hash"] not in (None, proposal["html_hash"]):
        return True
    if is_closed(state):
        return True
    if state["proposed"] is None:
        return False  # a state of an earlier release: nothing of this ladder to compare with
    return bool(state["redrive"] != proposal.get("redrive"))


def upgraded(state: dict[str, Any] | None) -> dict[str, Any] | None:
    """A state as this code reads it. States of earlier releases (the whole ladder in one
    stage, with its ``outcome``; before that, the rung awaited; before versions were carried,
    the HTML hash under ``version``) keep their version, page and rung number and hold no
    proposal: they are never replayed, and a redrive still reopens them."""
    if state is None or "proposed" in state:
        return state
    if "html_hash" not in state:
        state = {**state, "version": None, "html_hash": state.get("version")}
    return {
        "version": state["version"],
        "html_hash": state["html_hash"],
        "redrive": state.get("redrive"),
        "attempt": int(state.get("attempt") or 0),
        "proposed": None,
        "closed": None,
    }


def fresh(step: Step) -> dict[str, Any]:
    """The state of a ladder ``step`` starts, before any rung ended."""
    return {
        "version": step.version,
        "html_hash": step.html_hash,
        "redrive": step.ladder,
        "attempt": step.number - 1,
        "proposed": {},
        "closed": None,
    }


def proposed(
    state: dict[str, Any] | None,
    step: Step,
    *,
    answer: str | None,
    attempts: list[AttemptRecord],
    prompt: PromptRef | None,
    candidate_set_hash: str,
) -> dict[str, Any]:
    """The state after ``step``'s rung ended with ``answer`` (None: no model answer, or the
    deterministic rung), its own ``attempts`` and ``prompt``; a new dict (tables need
    reassignment)."""
    base = None if step.fresh else upgraded(state)  # a fallback rung extends its ladder
    if base is None or base["proposed"] is None:
        base = fresh(step)
    entry = {
        "attempt": step.number,
        "answer": answer,
        "attempts": attempt_records(attempts),
        "prompt": None if prompt is None else prompt.model_dump(),
        "candidate_set_hash": candidate_set_hash,
    }
    held = dict(base["proposed"] or {})
    held[step.rung] = entry
    return {**base, "attempt": max(int(base["attempt"]), step.number), "proposed": held}


def closed(
    version: Version | None, html_hash: str | None, terminal: dict[str, Any]
) -> dict[str, Any]:
    """The state of a version whose page was unusable (``terminal``: its candidates-stage
    event): it ends the ladders of older versions, and a replay produces the event again."""
    return {
        "version": version,
        "html_hash": html_hash,
        "redrive": None,
        "attempt": 0,
        "proposed": {},
        "closed": {"reason": terminal["reason"], "detail": terminal["detail"]},
    }


def is_closed(state: dict[str, Any]) -> bool:
    return state.get("closed") is not None


def stored_terminal(
    article_id: str, state: dict[str, Any], origin: tuple[str, int, int] | None
) -> Emit:
    """The candidates-stage terminal event a ``closed`` state stands for, produced again."""
    held = state["closed"]
    event = compensation_event(
        article_id,
        stage="candidates",
        kind="terminal",
        reason=held["reason"],
        detail=held.get("detail"),
        origin=origin,
        version=state["version"],
    )
    return Emit(ARTICLE_COMPENSATION, article_id, event)
