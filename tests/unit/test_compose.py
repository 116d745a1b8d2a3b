"""``docker-compose.yml``: the ECP stand-in, which approves every article, runs only when a
compose profile asks for it; what ``docker compose up`` starts takes verdicts from ECP."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from article_runtime.streams.service.settings import ECP_STANDIN_NAME_ENV, ECP_STANDIN_QID_ENV

COMPOSE = Path(__file__).resolve().parents[2] / "docker-compose.yml"
STANDIN = {ECP_STANDIN_QID_ENV, ECP_STANDIN_NAME_ENV}


def services() -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = yaml.safe_load(COMPOSE.read_text())["services"]
    return found


def test_nothing_started_by_default_runs_the_ecp_stand_in() -> None:
    default = {name: s for name, s in services().items() if not s.get("profiles")}
    assert {"kafka", "worker"} <= set(default)
    for name, service in default.items():
        assert not STANDIN & set(service.get("environment") or {}), name
        assert "ecp_standin" not in " ".join(service.get("command") or []), name


def test_the_ecp_standin_profile_runs_it_apart_as_the_real_classifier_runs() -> None:
    (standin,) = [s for s in services().values() if "ecp-standin" in (s.get("profiles") or [])]
    assert standin["command"] == ["python", "-m", "article_runtime.agents.ecp_standin"]
    assert set(standin["environment"]) >= STANDIN | {"KAFKA_BOOTSTRAP_SERVERS"}
    assert (
        standin["environment"]["KAFKA_BOOTSTRAP_SERVERS"]
        == (services()["worker"]["environment"]["KAFKA_BOOTSTRAP_SERVERS"])
    )
