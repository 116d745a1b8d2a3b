"""Redrive: turn terminal compensation events back into new attempts, after an outage.

When a provider is down, articles end terminal; once it is back, ``article-runtime redrive``
(``article_runtime.streams.commands.redrive``) reads ``article.compensation``, picks the terminal
events an operator names, and publishes, for each, one redrive event on the same topic: a
``fallback`` event (reason ``redrive``) whose ``origin`` is the terminal it redrives. The flow
already knows what a fallback means, so a redrive is a new attempt through the ordinary agents:

- ``hygiene`` (terminal events of stages ``hygiene`` and ``assembly``, the model ladder): the
  event carries the candidate set (``retry``), rebuilt from the article's ingested record at
  its version's offset, and the article's original version. The hygiene agent runs the ladder
  again for that version, its rungs numbered after every attempt a first pass can make
  (``article_runtime.agents.ladder.passage``): the version is not stale, and a newer version, if one
  came meanwhile, still wins.
- ``enrichment``: the event names the entity and the version; the enrichment agent replaces that
  entity's stored failure by a new attempt on the assembled article it holds, and never enriches
  an entity that already has its result
  (``article_runtime.agents.enrichment.EnrichmentJoin.on_redrive``).

Which terminals: by default only those an outage caused (``outage_caused``): every model
attempt ended in a technical failure (timeout, connection error, 429, 5xx), or no provider was
configured (``no_provider``). A terminal the models did not cause (``content_too_short`` when no
model was asked, an ``internal_error``) is redriven only when named with ``--reason``. Never one
where a model answered, validly or not (``answered``): a redrive runs the ladder from the
primary again, and spec 10.6 never asks a model again for a different answer.

Outputs stay idempotent: same keys, and, for the same candidate set and the same answers, the
same Markdown and content hashes as a first run. Pure functions here; Kafka I/O is the CLI's.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from article_runtime.model.attempts import RETRYABLE
from article_runtime.streams.kafka.topics import ARTICLE_COMPENSATION
from article_runtime.streams.service.compensation import RUNGS, compensation_event

REASON = "redrive"
RedriveStage = Literal["hygiene", "enrichment"]
# Which compensation stages' terminal events each ``--stage`` redrives. Terminal events of the
# candidates stage (an unusable page) and of decoding are not about a provider: a new attempt
# would end the same way.
STAGES: dict[RedriveStage, tuple[str, ...]] = {
    "hygiene": ("hygiene", "assembly"),
    "enrichment": ("enrichment",),
}
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
# Terminal reasons an outage stands for by themselves: no model was there to ask.
OUTAGE_REASONS = frozenset({"no_provider"})
# Attempt outcomes that are the provider's trouble, not the model's answer (the ones the policy
# retries on the same provider). A refused request (client_error: 400, 401, 404) is neither an
# outage nor an answer; anything else, ``output_truncated`` included, is an answer.
OUTAGE_OUTCOMES = RETRYABLE
NOT_ANSWERS = OUTAGE_OUTCOMES | {"client_error"}
MODEL_ROLES = ("runtime_primary", "runtime_fallback")


@dataclass(frozen=True)
class Found:
    """A compensation event and where it sits on ``article.compensation``."""

    event: dict[str, Any]
    partition: int
    offset: int

    @property
    def group(self) -> RedriveStage | None:
        stage = self.event["stage"]
        return next((name for name, stages in STAGES.items() if stage in stages), None)

    @property
    def key(self) -> tuple[str, str, str]:
        """What a redrive is about: the article, the stage group and (enrichment) the entity."""
        entity = self.event.get("entity") or {}
        return (self.event["article_id"], str(self.group), str(entity.get("qid") or ""))


def model_attempts(event: dict[str, Any]) -> list[dict[str, Any]]:
    return [a for a in event.get("attempts") or () if a["role"] in MODEL_ROLES]


def outage_caused(event: dict[str, Any]) -> bool:
    """Whether an outage explains a terminal event: no provider, or models asked and every
    attempt a technical failure."""
    if event["reason"] in OUTAGE_REASONS:
        return True
    tried = model_attempts(event)
    return bool(tried) and all(a["outcome"] in OUTAGE_OUTCOMES for a in tried)


def answered(event: dict[str, Any]) -> list[str]:
    """``model (outcome)`` of each model that answered in this terminal's attempts: asking it
    again would be asking for a different answer (spec 10.6)."""
    return list(
        dict.fromkeys(
            f"{a.get('model') or a['role']} ({a['outcome']})"
            for a in model_attempts(event)
            if a["outcome"] not in NOT_ANSWERS
        )
    )


@dataclass(frozen=True)
class Selection:
    """The operator's filters; None matches everything. Without ``reason``, only terminals
    an outage caused are redriven."""

    stage: RedriveStage
    reason: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    article_id: str | None = None

    def matches(self, found: Found) -> bool:
        event = found.event
        at: datetime = event["occurred_at"]
        return (
            event["kind"] == "terminal"
            and found.group == self.stage
            and self.reason in (None, event["reason"])
            and self.article_id in (None, event["article_id"])
            and (self.since is None or at >= self.since)
            and (self.until is None or at <= self.until)
        )


def still_terminal(events: Iterable[Found]) -> Iterator[Found]:
    """The last event of each (article, stage group, entity), read in topic order, when it is
    a terminal event: one that a later attempt (a redrive, a fallback) has not followed. An
    article's events share a partition, so offsets order them."""
    last: dict[tuple[str, str, str], Found] = {}
    for found in events:
        if found.group is not None:
            last[found.key] = found
    return (found for found in last.values() if found.event["kind"] == "terminal")


def refusal(found: Found, selection: Selection) -> str | None:
    """Why a terminal the filters match is not redriven (None: it is)."""
    event = found.event
    models = answered(event)
    if models:
        return f"answered: {', '.join(models)} answered; never asked again (spec 10.6)"
    if selection.reason is None and not outage_caused(event):
        return f"not_an_outage: {event['reason']} (name it with --reason to redrive it)"
    return None


def matching(events: Iterable[Found], selection: Selection) -> list[tuple[Found, str | None]]:
    """Every terminal the filters match that no later attempt followed, oldest first, each
    with its ``refusal``."""
    chosen = [f for f in still_terminal(events) if selection.matches(f)]
    chosen.sort(key=lambda f: (f.event["occurred_at"], f.partition, f.offset))
    return [(found, refusal(found, selection)) for found in chosen]


def selected(events: Iterable[Found], selection: Selection) -> list[Found]:
    """The terminal events to redrive, oldest first."""
    return [found for found, why in matching(events, selection) if why is None]


def is_redrive_event(event: dict[str, Any]) -> bool:
    """Whether a compensation event is an operator's redrive (of any stage): made outside the
    worker, by ``article-runtime redrive``."""
    return bool(event["kind"] == "fallback" and event["reason"] == REASON)


def is_hygiene_redrive(event: dict[str, Any]) -> bool:
    """Whether a compensation event is an operator's redrive of a hygiene terminal: the one
    fallback event the hygiene agent acts on (its own fallback events record decisions it
    already carried out)."""
    return (
        is_redrive_event(event)
        and event["stage"] in STAGES["hygiene"]
        and event.get("retry") is not None
    )


def first_attempt_after(attempts_so_far: int) -> int:
    """The ``attempts_so_far`` a hygiene redrive carries: at least a whole ladder's, so its
    first rung is numbered after anything the ladder it reopens judged (``ladder.passage``)."""
    return max(attempts_so_far, len(RUNGS))


def redrive_event(
    terminal: Found,
    *,
    retry: dict[str, Any] | None = None,
    version: dict[str, Any] | None = None,
    now: datetime | None = None,
) -> dict[str, Any]:
    """The fallback event that redrives ``terminal``; a hygiene redrive needs ``retry`` (the
    candidate set) and takes the version of the record it was read from when the terminal
    has none."""
    event = terminal.event
    hygiene = terminal.group == "hygiene"
    if hygiene and retry is None:
        raise ValueError("a hygiene redrive needs the candidate set (retry context)")
    at = (ARTICLE_COMPENSATION.name, terminal.partition, terminal.offset)
    return compensation_event(
        event["article_id"],
        stage=event["stage"],
        kind="fallback",
        reason=REASON,
        detail=f"redrive of {event['stage']} terminal {event['reason']}",
        next_attempt="runtime_primary",
        attempts_so_far=(
            first_attempt_after(event["attempts_so_far"]) if hygiene else event["attempts_so_far"]
        ),
        origin=at,
        occurred_at=now,
        retry=retry,
        entity=event.get("entity"),
        version=event.get("version") or version,
    )


def moment(text: str, now: datetime | None = None) -> datetime:
    """An ISO 8601 time (UTC when it names no zone), or a duration ago: ``90m``, ``2h``,
    ``1d``, ``30s``.

    Raises:
        ValueError: neither.
    """
    text = text.strip()
    unit = _UNITS.get(text[-1:].lower())
    count = text[:-1]
    if unit is not None and count.isascii() and count.isdigit():
        try:
            return (now or datetime.now(UTC)) - timedelta(seconds=int(count) * unit)
        except OverflowError:
            raise ValueError(f"{text!r} reaches before the year 1") from None
    try:
        at = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{text!r} is no ISO 8601 time nor a duration like 2h") from None
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)
