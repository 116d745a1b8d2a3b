"""The chart's alert rules mean what they say: ``promtool`` (Prometheus' own checker) parses
the rendered PrometheusRule and runs ``tests/support/alert_rules.promtool.yaml`` on it, series
that must fire each alert (lag growing, terminal share, a pod unready, a prompt with no model
answering) and near misses that must not (a flat lag, another release's series, terminals
that are only no_provider, a prompt some model still answers).

promtool is named by ``ARTICLE_RUNTIME_PROMTOOL`` (``make test`` takes it out of Debian's
prometheus package into ``~/.cache/article-runtime``) or found on PATH."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.unit.test_helm_chart import CHART, HELM, needs_helm

PROMTOOL = os.environ.get("ARTICLE_RUNTIME_PROMTOOL") or shutil.which("promtool")
RULE_TESTS = Path(__file__).resolve().parents[1] / "support" / "alert_rules.promtool.yaml"
needs_promtool = pytest.mark.skipif(
    PROMTOOL is None or not Path(PROMTOOL).is_file(),
    reason="promtool is neither in ARTICLE_RUNTIME_PROMTOOL nor on PATH",
)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, timeout=120, check=False)


@needs_helm
@needs_promtool
def test_each_alert_fires_on_its_condition_and_not_on_a_near_miss(tmp_path: Path) -> None:
    assert HELM is not None and PROMTOOL is not None
    rendered = run(
        HELM,
        "template",
        "t",
        str(CHART),
        "--namespace",
        "default",
        "--set",
        "kafka.bootstrapServers=kafka:9092",
        "--set",
        "allowNoProviders=true",
        "--set",
        "metrics.prometheusRule.enabled=true",
        "--show-only",
        "templates/prometheusrule.yaml",
    )
    assert rendered.returncode == 0, rendered.stderr
    rules = tmp_path / "rules.yaml"
    rules.write_text(yaml.safe_dump(yaml.safe_load(rendered.stdout)["spec"]))
    shutil.copy(RULE_TESTS, tmp_path / RULE_TESTS.name)
    checked = run(PROMTOOL, "check", "rules", str(rules))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    tested = run(PROMTOOL, "test", "rules", str(tmp_path / RULE_TESTS.name))
    assert tested.returncode == 0, tested.stdout + tested.stderr
