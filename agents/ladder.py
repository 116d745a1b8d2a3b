"""The hygiene fallback ladder (spec 10): primary model, fallback model, deterministic path.

One article's whole ladder runs inside the hygiene agent (``agents.hygiene``); what it ends
with is kept in a table so that a redelivered input produces the same outputs again instead of
asking the models a second time (their answers are not deterministic; the harness is). Pure
decisions here, over one article's state:

- ``passage``: what a message about a version is to the state: ``stale`` (an older version, or
  nothing left to do: dropped), ``replay`` (this version's ladder already ended: its outputs
  are produced again from the state) or ``run`` (a newer version, no state yet, or a redrive
  that reopens this version's terminal ladder).
- ``settled``: the state a ladder's outcome leaves: the version, the page's HTML hash, how it
  ended, the answer it assembled (IDs and repairs, a few hundred bytes) and every attempt.
- ``ladder_emits``: the outputs of an outcome, the same on a replay: one fallback event per
  model rung that did not hold (what failed and which rung comes next, for people, counters
  and lineage), then the assembled article or the terminal event.

The state belongs to one version of the article (``agents.versions``). Rungs are numbered
from 1 in a first pass; a redrive (an operator's new attempt) numbers its rungs after the
ladder it reopens.
"""

from __future__ import annotations

from typing import Any, Literal

from agents.versions import Version, compared
from article_runtime.hygiene import HygieneOutcome
from article_runtime.model import AttemptRecord
from streams.kafka.topics import ARTICLE_ASSEMBLED, ARTICLE_COMPENSATION
from streams.service.compensation import RUNGS, NextAttempt, Stage, compensation_event
from streams.service.records import assembled_record, attempt_records, attempts_from
from streams.service.wiring import Emit

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


def passage(
    state: dict[str, Any] | None,
    version: Version | None,
    html_hash: str | None,
    *,
    redrive: tuple[int, int] | None = None,
) -> Passage:
    """What a message about ``version`` (of the page hashed ``html_hash``) is to the ladder.

    ``redrive`` is (offset, number) of an operator's redrive event: its offset on the
    compensation topic and the number its first rung takes."""
    state = upgraded(state)
    if state is None:
        return "run"
    order = compared(version, state["version"])
    if order != "same":
        return "stale" if order == "older" else "run"
    if state["html_hash"] not in (None, html_hash) and html_hash is not None:
        # Unversioned records (written before versions were carried) of another page under
        # the same ID: the page starts afresh; a redrive of the page it replaced is dropped.
        return "stale" if redrive else "run"
    if redrive is None:
        # A state written before hygiene ran in one stage stored no outcome: its outputs were
        # produced by the stages of that release, so there is nothing to produce again.
        return "stale" if state["outcome"] is None else "replay"
    offset, number = redrive
    if state.get("redrive") == offset:
        return "replay"  # this redrive's own outcome, redelivered
    terminal = str(state["settled"]).startswith("terminal:")
    return "run" if terminal and number > int(state.get("attempt") or 0) else "stale"


def upgraded(state: dict[str, Any] | None) -> dict[str, Any] | None:
    """A state as this code reads it. The assembly agent of earlier releases wrote states with
    the rung it awaited and no outcome (and before versions were carried, the HTML hash under
    ``version``); such a state is never replayed, and a redrive still reopens it once it
    ended terminal."""
    if state is None or "outcome" in state:
        return state
    if "html_hash" not in state:
        state = {**state, "version": None, "html_hash": state.get("version")}
    return {
        "version": state["version"],
        "html_hash": state["html_hash"],
        "settled": state.get("settled") or "awaiting",
        "attempt": int(state.get("attempt") or 0),
        "redrive": None,
        "outcome": None,
    }


def settled(
    outcome: HygieneOutcome,
    *,
    version: Version | None,
    html_hash: str | None,
    last: int,
    redrive: int | None = None,
) -> dict[str, Any]:
    """The state a ladder's ``outcome`` leaves (``last``: the number of its last rung)."""
    article = outcome.article
    ended = (
        f"assembled:{article.path}:{article.hashes.markdown}"
        if article is not None
        else f"terminal:{outcome.reason}"
    )
    return {
        "version": version,
        "html_hash": html_hash,
        "settled": ended,
        "attempt": last,
        "redrive": redrive,
        "outcome": {
            "role": outcome.role,
            "answer": outcome.answer,
            "reason": outcome.reason,
            "attempts": attempt_records(outcome.attempts),
            "prompt": None
            if article is None or article.prompt is None
            else article.prompt.model_dump(),
        },
    }


def closed(
    version: Version | None, html_hash: str | None, terminal: dict[str, Any]
) -> dict[str, Any]:
    """The state of a version whose page was unusable (``terminal``: its candidates-stage
    event): it ends the ladders of older versions, and a replay produces the event again."""
    return {
        "version": version,
        "html_hash": html_hash,
        "settled": f"terminal:{terminal['reason']}",
        "attempt": 0,
        "redrive": None,
        "outcome": {
            "stage": "candidates",
            "reason": terminal["reason"],
            "detail": terminal["detail"],
        },
    }


def last_rung(outcome: HygieneOutcome, *, has_models: bool, first: int) -> int:
    """The number of the last rung ``outcome`` reached, its first rung numbered ``first``."""
    reached = [r for r in rungs(has_models) if any(a.role == r for a in outcome.attempts)]
    return first + max(len(reached), 1) - 1


def ladder_emits(
    article_id: str,
    outcome: HygieneOutcome,
    *,
    has_models: bool,
    first: int = 1,
    version: Version | None = None,
    origin: tuple[str, int, int] | None = None,
    html_hash: str | None = None,
) -> list[Emit]:
    """The outputs of one ladder: a fallback event per model rung that did not hold, then the
    assembled article (its ``hashes.source_html`` the page's) or the terminal event."""
    emits, so_far, number = [], [], first - 1
    for rung in rungs(has_models):
        tried = [a for a in outcome.attempts if a.role == rung]
        if rung == "deterministic" or not tried:
            continue
        number += 1
        so_far += tried
        if rung == outcome.role:
            break  # this rung's answer was assembled
        last = tried[-1]
        event = compensation_event(
            article_id,
            stage=_stage(last),
            kind="fallback",
            reason=last.reason or "no_answer",
            next_attempt=next_rung(rung, has_models),
            attempts_so_far=number,
            attempts=attempt_records(so_far),
            origin=origin,
            version=version,
        )
        emits.append(Emit(ARTICLE_COMPENSATION, article_id, event))
    article = outcome.article
    if article is not None:
        if html_hash is not None:
            hashes = article.hashes.model_copy(update={"source_html": html_hash})
            article = article.model_copy(update={"hashes": hashes})
        record = assembled_record(article, version=version)
        return [*emits, Emit(ARTICLE_ASSEMBLED, article_id, record)]
    terminal = compensation_event(
        article_id,
        stage="assembly",
        kind="terminal",
        reason=outcome.reason or "invalid",
        attempts_so_far=number + 1,
        attempts=attempt_records(outcome.attempts),
        origin=origin,
        version=version,
    )
    return [*emits, Emit(ARTICLE_COMPENSATION, article_id, terminal)]


def _stage(last: AttemptRecord) -> Stage:
    """``assembly`` when the harness judged the rung's answer invalid, ``hygiene`` when the
    model never gave one (a technical failure: timeout, refusal, 5xx...)."""
    return "assembly" if last.outcome == "invalid" else "hygiene"


def stored_attempts(state: dict[str, Any]) -> list[AttemptRecord]:
    return attempts_from(state["outcome"].get("attempts") or [])


def stored_terminal(
    article_id: str, state: dict[str, Any], origin: tuple[str, int, int] | None
) -> Emit:
    """The candidates-stage terminal event a ``closed`` state stands for, produced again."""
    held = state["outcome"]
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


def is_closed(state: dict[str, Any]) -> bool:
    return bool(state["outcome"].get("stage") == "candidates")
