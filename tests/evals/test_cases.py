"""The built cases and handwritten answers are exactly what their entries give today, and a
case needs nothing outside the repository."""

from __future__ import annotations

import json

import pytest

from evals.cases import entries
from evals.paths import ANSWERS, CASES, PROMPTS, built_path
from evals.tools.make_cases import build

CASE_IDS = [(prompt, name) for prompt in PROMPTS for name in entries(prompt)]


@pytest.mark.parametrize(("prompt", "name"), CASE_IDS, ids=[n for _, n in CASE_IDS])
def test_built_data_and_answers_are_what_the_entry_gives(prompt: str, name: str) -> None:
    built, answers = build(prompt, name)
    stored = json.loads(built_path(prompt, name).read_text(encoding="utf-8"))
    assert built == stored, f"rebuild: .venv/bin/python -m evals.tools.make_cases --case {name}"
    on_disk = {
        path.stem: data
        for path in (ANSWERS / prompt).glob(f"{name}--*.json")
        if (data := json.loads(path.read_text(encoding="utf-8"))).get("origin") == "handwritten"
        and data["input"] == name
    }
    assert on_disk == answers


@pytest.mark.parametrize(("prompt", "name"), CASE_IDS, ids=[n for _, n in CASE_IDS])
def test_every_file_a_case_names_lives_in_the_repository(prompt: str, name: str) -> None:
    entry = entries(prompt)[name]
    named = [entry.get("page"), (entry.get("truth") or {}).get("text")]
    for relative in filter(None, named):
        path = (CASES / str(relative)).resolve()
        assert path.is_relative_to(CASES.resolve()), path
        assert path.is_file(), path


def test_every_answer_answers_a_case() -> None:
    for prompt in PROMPTS:
        for path in (ANSWERS / prompt).glob("*.json"):
            assert json.loads(path.read_text(encoding="utf-8"))["input"] in entries(prompt), path
