"""The proposal record: one hygiene rung's answer on ``article.proposal``, with what judges it.

The hygiene agent publishes the model's answer verbatim and the candidate set it chose from;
the assembly agent (and ``article-runtime replay``, later) judges it from the record alone.
The set travels as its JSON (the bytes its hash is taken of) compressed with zlib at level 1:
on the real news pages of ``make bench-stream`` that is 3.5 KB an article (the JSON 12.5 KB),
0.3 ms of CPU to pack and read back, where rebuilding it from the page would cost 20 ms and a
read of the 113 KB page (``python -m bench.candidate_carry``).
"""

from __future__ import annotations

import zlib
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from article_runtime.hashing import sha256_hex
from article_runtime.model import AttemptRecord, CandidateSet, PromptRef
from article_runtime.streams.service.compensation import NextAttempt
from article_runtime.streams.service.records import attempt_records, now

LEVEL = 1  # level 6 saves 8% of the bytes for 80% more CPU (bench.candidate_carry)
# A set inflating past this is refused: the largest a 5 MiB page makes is about 9 MiB.
MAX_INFLATED_BYTES = 16 * 1024 * 1024


class CarriedSetError(Exception):
    """A carried candidate set that cannot be judged against, with a categorical reason:
    ``candidate_set_corrupt`` (no zlib, too large, no candidate set) or
    ``candidate_set_hash_mismatch`` (not the set the answer was asked with)."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail = reason, detail


class KnownSets:
    """Candidate sets this worker built or read lately, by the hash of their JSON.

    A proposal is usually judged by the worker whose hygiene agent just made it (the topics are
    co-partitioned), and a fallback event goes back to that agent: both find the set here
    instead of inflating and parsing the copy the record carries (``make bench-stream``'s
    profile put those at 0.9 ms of an article's CPU). A set is found only by the hash of the
    very JSON it came from, so a hit is the set the record carries. It holds sets whose JSON
    adds up to ``max_bytes`` (8 MiB: about 650 real news pages' sets, some 50 MiB of objects),
    enough for the assembly agent to trail the hygiene agent by a burst of pages; the oldest go
    first."""

    def __init__(self, max_bytes: int = 8 * 1024 * 1024) -> None:
        self.max_bytes, self.held_bytes = max_bytes, 0
        self._sets: OrderedDict[str, tuple[CandidateSet, int]] = OrderedDict()

    def get(self, sha256: str) -> CandidateSet | None:
        found = self._sets.get(sha256)
        if found is None:
            return None
        self._sets.move_to_end(sha256)
        return found[0]

    def put(self, sha256: str, candidates: CandidateSet, size: int) -> None:
        if sha256 in self._sets:
            self._sets.move_to_end(sha256)
            return
        self._sets[sha256] = (candidates, size)
        self.held_bytes += size
        while self.held_bytes > self.max_bytes and len(self._sets) > 1:
            _, (_, dropped) = self._sets.popitem(last=False)
            self.held_bytes -= dropped


@dataclass(frozen=True)
class Carried:
    """A candidate set as a record carries it: compressed JSON and the JSON's SHA-256."""

    zlib: bytes
    sha256: str

    @classmethod
    def of(cls, candidates: CandidateSet, known: KnownSets | None = None) -> Carried:
        text = candidates.model_dump_json().encode("utf-8")
        carried = cls(zlib.compress(text, LEVEL), sha256_hex(text))
        if known is not None:
            known.put(carried.sha256, candidates, len(text))
        return carried

    @classmethod
    def packed(cls, text: bytes, sha256: str) -> Carried:
        """A set already in JSON (a redrive's ``candidate_set_json``) and the hash it names."""
        return cls(zlib.compress(text, LEVEL), sha256)

    def candidates(self, known: KnownSets | None = None) -> CandidateSet:
        """The set, checked against its hash (or found in ``known`` by it).

        Raises:
            CarriedSetError: corrupt, or not the set the hash names.
        """
        held = None if known is None else known.get(self.sha256)
        if held is not None:
            return held
        found, size = self._inflated()
        if known is not None:
            known.put(self.sha256, found, size)
        return found

    def _inflated(self) -> tuple[CandidateSet, int]:
        try:
            inflater = zlib.decompressobj()
            text = inflater.decompress(self.zlib, MAX_INFLATED_BYTES)
        except zlib.error as exc:
            raise CarriedSetError("candidate_set_corrupt", f"zlib: {exc}") from exc
        if inflater.unconsumed_tail or not inflater.eof:
            raise CarriedSetError("candidate_set_corrupt", "truncated or over the size limit")
        if sha256_hex(text) != self.sha256:
            raise CarriedSetError("candidate_set_hash_mismatch", f"expected {self.sha256}")
        try:
            return CandidateSet.model_validate_json(text), len(text)
        except ValidationError as exc:
            raise CarriedSetError("candidate_set_corrupt", f"{exc.error_count()} errors") from exc


def carried_of(record: dict[str, Any]) -> Carried:
    """The set a proposal record carries."""
    return Carried(record["candidate_set_zlib"], record["candidate_set_hash"])


def proposal_record(
    article_id: str,
    *,
    version: dict[str, Any] | None,
    rung: NextAttempt,
    attempt: int,
    answer: str | None,
    prompt: PromptRef | None,
    attempts: Sequence[AttemptRecord],
    carried: Carried,
    html_hash: str,
    origin: tuple[str, int, int] | None,
    redrive: int | None,
) -> dict[str, Any]:
    """An ``ArticleProposal`` record."""
    return {
        "article_id": article_id,
        "version": version,
        "rung": rung,
        "attempt": attempt,
        "answer": answer,
        "prompt": None if prompt is None else prompt.model_dump(),
        "attempts": attempt_records(attempts),
        "candidate_set_hash": carried.sha256,
        "candidate_set_zlib": carried.zlib,
        "html_hash": html_hash,
        "origin": None
        if origin is None
        else {"topic": origin[0], "partition": origin[1], "offset": origin[2]},
        "redrive": redrive,
        "proposed_at": now(),
    }


def origin_of(record: dict[str, Any]) -> tuple[str, int, int] | None:
    found = record.get("origin")
    return None if found is None else (found["topic"], found["partition"], found["offset"])
