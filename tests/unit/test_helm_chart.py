"""The chart renders with its operability objects (``helm template``, skipped without helm),
and the Grafana dashboard asks only for metrics the worker exports."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml

from streams.kafka.commits import CommitGate
from streams.service.metrics import FlowMetrics
from streams.service.metrics_page import StateCollector

CHART = Path(__file__).resolve().parents[2] / "helm" / "article-runtime"
DASHBOARD = CHART / "dashboards" / "article-runtime.json"
HELM = shutil.which("helm")
needs_helm = pytest.mark.skipif(HELM is None, reason="helm is not on PATH")
BASE = ["--set", "kafka.bootstrapServers=kafka:9092"]
EVERYTHING = [
    *BASE,
    "--set",
    "metrics.serviceMonitor.enabled=true",
    "--set",
    "metrics.grafanaDashboard.enabled=true",
    "--set",
    "autoscaling.keda.enabled=true",
]


def render(*args: str) -> subprocess.CompletedProcess[str]:
    assert HELM is not None
    command = [HELM, "template", "t", str(CHART), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)


def objects(*args: str) -> dict[str, dict[str, Any]]:
    done = render(*args)
    assert done.returncode == 0, done.stderr
    found: dict[str, dict[str, Any]] = {}
    for doc in yaml.safe_load_all(done.stdout):
        if doc:
            assert doc["kind"] not in found or doc["kind"] == "ConfigMap"
            found.setdefault(doc["kind"], doc)
            if doc["kind"] == "ConfigMap" and doc["metadata"]["name"].endswith("-dashboard"):
                found["dashboard"] = doc
    return found


@needs_helm
def test_defaults_render_probes_on_liveness_and_readiness_a_pdb_and_json_logs() -> None:
    rendered = objects(*BASE)
    assert {"StatefulSet", "ConfigMap", "Service", "PodDisruptionBudget"} <= set(rendered)
    assert not {"ServiceMonitor", "ScaledObject", "dashboard"} & set(rendered)
    deployment = rendered["StatefulSet"]
    assert deployment["spec"]["replicas"] == 1
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    paths = {
        p: container[p]["httpGet"]["path"]
        for p in ("startupProbe", "livenessProbe", "readinessProbe")
    }
    assert paths == {
        "startupProbe": "/health/live/",
        "livenessProbe": "/health/live/",
        "readinessProbe": "/health/ready/",
    }
    assert rendered["ConfigMap"]["data"]["ARTICLE_RUNTIME_LOG_FORMAT"] == "json"
    pdb = rendered["PodDisruptionBudget"]["spec"]
    assert pdb["maxUnavailable"] == 1
    assert pdb["selector"]["matchLabels"] == deployment["spec"]["selector"]["matchLabels"]


@needs_helm
def test_every_optional_object_renders_and_keda_owns_the_replicas() -> None:
    rendered = objects(*EVERYTHING)
    assert "replicas" not in rendered["StatefulSet"]["spec"]
    (endpoint,) = rendered["ServiceMonitor"]["spec"]["endpoints"]
    assert (endpoint["port"], endpoint["path"]) == ("web", "/metrics")
    service_ports = [p["name"] for p in rendered["Service"]["spec"]["ports"]]
    assert endpoint["port"] in service_ports
    scaled = rendered["ScaledObject"]["spec"]
    assert scaled["scaleTargetRef"]["kind"] == "StatefulSet"
    assert scaled["scaleTargetRef"]["name"] == rendered["StatefulSet"]["metadata"]["name"]
    assert scaled["maxReplicaCount"] == 3  # the partition count
    (trigger,) = scaled["triggers"]
    assert trigger["type"] == "kafka"
    assert trigger["metadata"]["consumerGroup"] == "article-runtime"
    shipped = json.loads(rendered["dashboard"]["data"]["article-runtime.json"])
    assert shipped == json.loads(DASHBOARD.read_text())


@needs_helm
def test_keda_is_refused_beyond_the_partition_count() -> None:
    too_many = render(*EVERYTHING, "--set", "autoscaling.keda.maxReplicas=4")
    assert too_many.returncode != 0 and "kafka.partitions" in too_many.stderr
    more_partitions = [
        *EVERYTHING,
        "--set",
        "kafka.partitions=6",
        "--set",
        "autoscaling.keda.maxReplicas=6",
    ]
    assert objects(*more_partitions)["ScaledObject"]["spec"]["maxReplicaCount"] == 6


def test_the_dashboard_asks_only_for_metrics_the_worker_exports() -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    queries = [t["expr"] for panel in dashboard["panels"] for t in panel["targets"]]
    asked = {name for q in queries for name in re.findall(r"article_runtime_[a-z_]+", q)}
    metrics = FlowMetrics()
    transport = SimpleNamespace(gate=CommitGate(), unknown_writers=None)
    no_app = SimpleNamespace(consumer=None, transport=transport)
    idle = SimpleNamespace(app=no_app, tables={}, bytes_in_flight={})  # no Faust app
    metrics.registry.register(StateCollector(idle, lambda: []))  # type: ignore[arg-type]
    page = metrics.render().decode()
    exported = set(re.findall(r"^# TYPE (article_runtime_[a-z_]+) ", page, flags=re.MULTILINE))
    series = {
        f"{n}{suffix}" for n in exported for suffix in ("", "_total", "_bucket", "_count", "_sum")
    }
    assert len(asked) >= 10
    assert asked <= series, asked - series
