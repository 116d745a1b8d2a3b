"""Answers real models gave in the stream, stored as the suite's answers for review.

    article-runtime consume article.proposal --from-beginning --idle-timeout 5 \\
        | .venv/bin/python -m evals.tools.recorded [--answers DIR]

Every proposal on ``article.proposal`` carries a model's hygiene answer verbatim, the model
that gave it and the hash of the candidate set it was asked with. A proposal asked with the
very set a case of the hygiene suite builds (its ``input_sha256``), and with today's prompt
file, is that case's answer from that model: it is written to
``answers/article_content_hygiene/<case>--<model>.json`` with ``origin: recorded:<model>``
and ``expect: null``, exactly as ``make evals-live RECORD=1`` stores one, so a person reads it
and labels it, and ``certified_models`` rests on answers real models gave. The pages the
stream saw are the suite's when ingestion (or a test run) publishes the case pages with their
URLs. One JSON line per proposal says what became of it: ``written``, or skipped as
``no_answer``, ``no_case`` (no case builds that set), ``stale_prompt`` (asked with another
prompt file) or ``exists`` (an answer from that model is stored for the case already).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from evals.cases import entries, load_case
from evals.paths import ANSWERS, HYGIENE, built_path
from evals.prompts import runtime_messages


def cases_by_input() -> dict[str, str]:
    """The hygiene cases by the hash of the candidate set they build."""
    found = {}
    for name in entries(HYGIENE):
        path = built_path(HYGIENE, name)
        if path.exists():
            found[json.loads(path.read_text("utf-8"))["input_sha256"]] = name
    return found


def stored_answer(proposal: dict[str, Any], case: str, model: str) -> dict[str, Any]:
    text = str(proposal["answer"])
    try:
        answer: Any = json.loads(text)
    except ValueError:
        answer = text
    messages = runtime_messages(HYGIENE, case)
    return {
        "input": case,
        "origin": f"recorded:{model}",
        "messages_sha256": hashlib.sha256(json.dumps(messages).encode()).hexdigest(),
        "expect": None,  # a person reviews the answer and writes "pass" or "fail"
        "caught_by": {},
        "answer": answer,
        "recorded_from": {
            "article_id": proposal["article_id"],
            "rung": proposal["rung"],
            "proposed_at": str(proposal.get("proposed_at")),
        },
    }


def recorded(proposals: Iterable[dict[str, Any]], answers: Path) -> Iterator[dict[str, Any]]:
    """Store each usable proposal; one verdict per proposal."""
    from article_runtime.llm.prompts import load_prompt

    today = load_prompt(HYGIENE).sha256
    cases = cases_by_input()
    for proposal in proposals:
        said = {"article_id": proposal.get("article_id"), "rung": proposal.get("rung")}
        attempts = proposal.get("attempts") or []
        model = str(attempts[-1].get("model") or "") if attempts else ""
        case = cases.get(str(proposal.get("candidate_set_hash")))
        prompt = proposal.get("prompt") or {}
        if proposal.get("answer") is None or not model:
            yield {**said, "action": "no_answer"}
        elif case is None:
            yield {**said, "action": "no_case"}
        elif prompt.get("sha256") != today:
            yield {**said, "case": case, "action": "stale_prompt"}
        else:
            load_case(HYGIENE, case)  # an entry that no longer loads is an error here
            path = answers / HYGIENE / f"{case}--{model}.json"
            if path.exists():
                yield {**said, "case": case, "model": model, "action": "exists"}
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            stored = stored_answer(proposal, case, model)
            path.write_text(json.dumps(stored, ensure_ascii=False, indent=2) + "\n", "utf-8")
            yield {**said, "case": case, "model": model, "action": "written"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", type=Path, default=ANSWERS, help="where answers are stored")
    args = parser.parse_args(argv)
    lines = (json.loads(line) for line in sys.stdin if line.strip())
    for verdict in recorded(lines, args.answers):
        print(json.dumps(verdict, ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
