"""(Re)build the enrichment cases and their handwritten answers.

    .venv/bin/python -m evals.tools.make_enrichment

Small handwritten articles where two entities get opposite treatment, so the sentiment must
be the one towards the ECP entity and not the article's tone. Answers written here say
``"origin": "handwritten"``: they exercise the assertions and are never a model's result.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from evals.cases import Case, input_hash
from evals.paths import ANSWERS, CASES, ENRICHMENT

PT = {
    "title": "Petrobras amplia lucro enquanto Vale enfrenta multa bilionária",
    "language": "pt",
    "markdown": "\n\n".join(
        [
            "A Petrobras registrou lucro recorde no trimestre, impulsionada pela alta do petróleo "
            "e pela redução da dívida, segundo balanço divulgado nesta quinta-feira.",
            "Analistas elogiaram a gestão da Petrobras e destacaram o pagamento de dividendos "
            "acima do esperado aos acionistas.",
            "Já a Vale foi multada em R$ 2 bilhões pelo Ibama por danos ambientais causados pelo "
            "rompimento de uma barragem em Minas Gerais.",
            "Moradores afetados criticaram a Vale pela demora nas indenizações, e o Ministério "
            "Público abriu nova investigação contra a mineradora.",
        ]
    ),
}
EN = {
    "title": "Northfield City cruise past Harbor United as league fines visitors",
    "language": "en",
    "markdown": "\n\n".join(
        [
            "Northfield City beat Harbor United 3-0 on Saturday, and supporters praised coach "
            "Maria Lopez for a brilliant tactical display.",
            "The league fined Harbor United £50,000 after its fans threw flares onto the pitch, "
            "and opened an inquiry into the club's security arrangements.",
            "Northfield City now lead the table by five points with ten matches left.",
        ]
    ),
}
JA = {
    "title": "新宿区に新しい図書館が開館",
    "language": "ja",
    "markdown": "\n\n".join(
        [
            "東京都は三月十日、新宿区に新しい図書館を開館しました。",
            "図書館の建設は大林組が担当しました。",
            "館長は「多くの人に来てほしい」と話しました。開館初日には千二百人が訪れました。",
        ]
    ),
}
INPUTS: dict[str, tuple[str, dict[str, str], dict[str, str], str]] = {
    # name: (category, article, entity, expected sentiment)
    "pt-petrobras": ("entity_sentiment", PT, {"qid": "Q184701", "name": "Petrobras"}, "positive"),
    "pt-vale": ("entity_sentiment", PT, {"qid": "Q1370536", "name": "Vale"}, "negative"),
    "en-harbor": ("entity_sentiment", EN, {"qid": "Q999001", "name": "Harbor United"}, "negative"),
    "ja-obayashi": ("tag_language", JA, {"qid": "Q1062014", "name": "大林組"}, "neutral"),
}


def _tags(*pairs: tuple[str, list[str]]) -> list[dict[str, Any]]:
    return [{"tag": tag, "evidence_block_ids": ids} for tag, ids in pairs]


GOOD: dict[str, dict[str, Any]] = {
    "pt-petrobras": {
        "sentiment": "positive",
        "tags": _tags(("Petrobras", ["p1"]), ("lucro recorde", ["p1"]), ("dividendos", ["p2"]),
                      ("petróleo", ["p1"])),
    },
    "pt-vale": {
        "sentiment": "negative",
        "tags": _tags(("Vale", ["p3"]), ("danos ambientais", ["p3"]), ("Ibama", ["p3"]),
                      ("barragem", ["p3"]), ("indenizações", ["p4"])),
    },
    "en-harbor": {
        "sentiment": "negative",
        "tags": _tags(("Harbor United", ["p2"]), ("flares", ["p2"]), ("league", ["p2"]),
                      ("Northfield City", ["p1"])),
    },
    "ja-obayashi": {
        "sentiment": "neutral",
        "tags": _tags(("図書館", ["p1"]), ("新宿区", ["p1"]), ("大林組", ["p2"])),
    },
}  # fmt: skip
# name: (input, answer change, expected failures {assertion: reason code}, why)
BAD: dict[str, tuple[str, dict[str, Any], dict[str, str | None], str]] = {
    "pt-vale--wrong-entity": ("pt-vale", {"sentiment": "positive"},
        {"sentiment": "wrong_sentiment"}, "the sentiment towards Petrobras, not Vale"),
    "pt-vale--english-tags": ("pt-vale", {"tags": _tags(("fine", ["p3"]), ("dam collapse", ["p3"]),
        ("mining company", ["p4"]))}, {"harness": "tag_language_mismatch"},
        "English tags on a Portuguese article"),
    "pt-vale--duplicate-tags": ("pt-vale", {"tags": _tags(("Vale", ["p3"]), ("barragem", ["p3"]),
        ("Barragem", ["p3"]), ("Ibama", ["p3"]))}, {"harness": "duplicate_tag"},
        "the same tag twice, case aside"),
    "pt-petrobras--invented-evidence": ("pt-petrobras", {"tags": _tags(("Petrobras", ["p1"]),
        ("dividendos", ["p9"]), ("petróleo", ["p1"]))}, {"harness": "unknown_evidence_id"},
        "cites a block that does not exist"),
    "en-harbor--overall-tone": ("en-harbor", {"sentiment": "positive"},
        {"sentiment": "wrong_sentiment"}, "the article's celebratory tone, not the entity's"),
    "en-harbor--too-few-tags": ("en-harbor", {"tags": _tags(("Harbor United", ["p2"]),
        ("league", ["p2"]))}, {"schema": None, "harness": "too_few_tags"}, "two tags"),
    "en-harbor--invalid-sentiment": ("en-harbor", {"sentiment": "mixed"},
        {"schema": None, "harness": "invalid_sentiment"}, "a sentiment outside the enum"),
    "en-harbor--summary-field": ("en-harbor", {"summary": "Harbor United lost and were fined."},
        {"schema": None, "harness": "schema_violation"}, "editorial text in the answer"),
    "ja-obayashi--latin-tags": ("ja-obayashi", {"tags": _tags(("library", ["p1"]),
        ("Shinjuku", ["p1"]), ("Obayashi", ["p2"]))}, {"harness": "tag_script_mismatch"},
        "romanized tags on a Japanese article"),
}  # fmt: skip


def _write(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def _answer(
    name: str, source: str, answer: Any, caught_by: dict[str, str | None], note: str
) -> None:
    _write(
        ANSWERS / ENRICHMENT / f"{name}.json",
        {
            "input": source,
            "origin": "handwritten",
            "note": note,
            "expect": "fail" if caught_by else "pass",
            "caught_by": caught_by,
            "answer": answer,
        },
    )


def main() -> int:
    for old in (ANSWERS / ENRICHMENT).glob("*.json"):
        if json.loads(old.read_text(encoding="utf-8")).get("origin") == "handwritten":
            old.unlink()
    for name, (category, article, entity, sentiment) in INPUTS.items():
        data: dict[str, Any] = {
            "category": category,
            "article": article,
            "entity": entity,
            "expected": {"sentiment": sentiment},
        }
        data["input_sha256"] = input_hash(Case(ENRICHMENT, name, category, data))
        _write(CASES / ENRICHMENT / f"{name}.json", data)
        _answer(
            f"{name}--good", name, GOOD[name], {}, "grounded tags, sentiment towards the entity"
        )
    for name, (source, change, caught_by, note) in BAD.items():
        _answer(name, source, {**GOOD[source], **change}, caught_by, note)
    return 0


if __name__ == "__main__":
    sys.exit(main())
