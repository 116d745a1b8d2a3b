"""The chart lints and renders each values case its README documents (``helm lint``,
``helm template``), refuses what the worker cannot run with, rolls its pods on upgrades and
config changes, and its dashboard and alert rules ask only for metrics the worker exports.

``make test`` builds a pinned helm and names it in ``ARTICLE_RUNTIME_HELM``; without it, helm
on PATH. Without either the chart tests skip, which CI counts as a failure."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml

from article_runtime.streams.kafka.commits import CommitGate
from article_runtime.streams.service.metrics import FlowMetrics
from article_runtime.streams.service.metrics_page import StateCollector

ROOT = Path(__file__).resolve().parents[2]
CHART = ROOT / "helm" / "article-runtime"
DASHBOARD = CHART / "dashboards" / "article-runtime.json"
PROVIDERS = yaml.safe_load((ROOT / "examples" / "providers.example.yaml").read_text())
HELM = os.environ.get("ARTICLE_RUNTIME_HELM") or shutil.which("helm")
needs_helm = pytest.mark.skipif(
    HELM is None or not Path(HELM).is_file(),
    reason="helm is neither in ARTICLE_RUNTIME_HELM (make test builds it) nor on PATH",
)
BOOTSTRAP = ["--set", "kafka.bootstrapServers=kafka:9092"]
TRIAL = [*BOOTSTRAP, "--set", "allowNoProviders=true"]  # no providers: a trial
EVERYTHING = [
    *TRIAL,
    "--set",
    "metrics.serviceMonitor.enabled=true",
    "--set",
    "metrics.grafanaDashboard.enabled=true",
    "--set",
    "metrics.prometheusRule.enabled=true",
    "--set",
    "autoscaling.keda.enabled=true",
]


@pytest.fixture(scope="module")
def providers_file(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The README's ``-f my-providers-values.yaml``: the example providers file as values."""
    path = tmp_path_factory.mktemp("values") / "providers.yaml"
    path.write_text(yaml.safe_dump({"providers": PROVIDERS}))
    return str(path)


def helm(*args: str) -> subprocess.CompletedProcess[str]:
    assert HELM is not None
    return subprocess.run([HELM, *args], capture_output=True, text=True, timeout=60, check=False)


def render(*args: str) -> subprocess.CompletedProcess[str]:
    return helm("template", "t", str(CHART), *args)


def objects(*args: str) -> dict[str, dict[str, Any]]:
    """The rendered objects by kind (ConfigMaps by name), after ``helm lint`` passes on the
    same values."""
    linted = helm("lint", "--strict", str(CHART), *args)
    assert linted.returncode == 0, linted.stdout + linted.stderr
    done = render(*args)
    assert done.returncode == 0, done.stderr
    found: dict[str, dict[str, Any]] = {}
    for doc in yaml.safe_load_all(done.stdout):
        if not doc:
            continue
        key = doc["metadata"]["name"] if doc["kind"] == "ConfigMap" else doc["kind"]
        assert key not in found, key
        found[key] = doc
    return found


def container(rendered: dict[str, dict[str, Any]]) -> dict[str, Any]:
    (worker,) = rendered["StatefulSet"]["spec"]["template"]["spec"]["containers"]
    return dict(worker)


def secret_env(rendered: dict[str, dict[str, Any]]) -> dict[str, tuple[str, str]]:
    env = container(rendered)["env"]
    return {
        e["name"]: (e["valueFrom"]["secretKeyRef"]["name"], e["valueFrom"]["secretKeyRef"]["key"])
        for e in env
        if "secretKeyRef" in e.get("valueFrom", {})
    }


def refused(*args: str) -> str:
    done = render(*args)
    assert done.returncode != 0, "rendered"
    return done.stderr


# -- the documented cases ------------------------------------------------------------------


@needs_helm
def test_the_quick_start_install_reads_the_keys_from_the_secret_and_mounts_the_providers(
    providers_file: str,
) -> None:
    """README: existingSecret, langfuse, ``-f`` a providers values file."""
    args = [
        *BOOTSTRAP,
        "--set",
        "secret.existingSecret=article-runtime-keys",
        "--set",
        "langfuse.enabled=true",
        "-f",
        providers_file,
    ]
    rendered = objects(*args)
    config = rendered["t-article-runtime"]["data"]
    assert config["ARTICLE_RUNTIME_PROVIDERS"] == "/etc/article-runtime/providers.yaml"
    mounted = yaml.safe_load(rendered["t-article-runtime-providers"]["data"]["providers.yaml"])
    assert mounted == PROVIDERS
    assert secret_env(rendered) == {
        name: ("article-runtime-keys", name)
        for name in ("LANGFUSE_PUBLIC_KEY", "LANGFUSE_SECRET_KEY", "OPENAI_API_KEY")
    }
    assert "Secret" not in rendered  # the keys are never in the release
    assert not any("sk-" in json.dumps(doc) for doc in rendered.values())


@needs_helm
def test_a_secured_cluster_gets_its_protocol_login_and_ca_without_the_password(
    providers_file: str,
) -> None:
    """README, "Secured clusters": SASL_SSL with SCRAM, a private CA, 6 partitions, 3 pods."""
    args = [
        "--set",
        r"kafka.bootstrapServers=b-1.kafka.example.com:9096\,b-2.kafka.example.com:9096",
        "--set",
        "kafka.securityProtocol=SASL_SSL",
        "--set",
        "kafka.sasl.mechanism=SCRAM-SHA-512",
        "--set",
        "kafka.sasl.username=article-runtime",
        "--set",
        "kafka.tls.existingSecret=kafka-ca",
        "--set",
        "secret.existingSecret=article-runtime-keys",
        "--set",
        "kafka.partitions=6",
        "--set",
        "replicaCount=3",
        "-f",
        providers_file,
    ]
    rendered = objects(*args)
    config = rendered["t-article-runtime"]["data"]
    brokers = "b-1.kafka.example.com:9096,b-2.kafka.example.com:9096"
    assert config["KAFKA_BOOTSTRAP_SERVERS"] == brokers  # the comma escaped, as README writes it
    assert config["KAFKA_SECURITY_PROTOCOL"] == "SASL_SSL"
    assert (config["KAFKA_SASL_MECHANISM"], config["KAFKA_SASL_USERNAME"]) == (
        "SCRAM-SHA-512",
        "article-runtime",
    )
    assert config["KAFKA_SSL_CA_LOCATION"] == "/etc/article-runtime/kafka-tls/ca.crt"
    assert "KAFKA_SASL_PASSWORD" not in config
    assert secret_env(rendered)["KAFKA_SASL_PASSWORD"] == (
        "article-runtime-keys",
        "KAFKA_SASL_PASSWORD",
    )
    volumes = {v["name"]: v for v in rendered["StatefulSet"]["spec"]["template"]["spec"]["volumes"]}
    assert volumes["kafka-tls"]["secret"]["secretName"] == "kafka-ca"
    assert rendered["StatefulSet"]["spec"]["replicas"] == 3
    annotations = rendered["StatefulSet"]["spec"]["template"]["metadata"]["annotations"]
    assert {"checksum/existing-secret", "checksum/kafka-tls-secret"} <= set(annotations)
    mutual = [
        *args,
        "--set",
        "kafka.tls.certificateKey=tls.crt",
        "--set",
        "kafka.tls.keyKey=tls.key",
    ]
    config = objects(*mutual)["t-article-runtime"]["data"]
    assert config["KAFKA_SSL_CERTIFICATE_LOCATION"].endswith("/tls.crt")
    assert config["KAFKA_SSL_KEY_LOCATION"].endswith("/tls.key")


@needs_helm
def test_a_trial_without_providers_renders_only_when_asked_for() -> None:
    stderr = refused(*BOOTSTRAP)
    assert "allowNoProviders" in stderr and "providers is empty" in stderr
    rendered = objects(*TRIAL)
    assert "ARTICLE_RUNTIME_PROVIDERS" not in rendered["t-article-runtime"]["data"]
    assert "t-article-runtime-providers" not in rendered
    assert secret_env(rendered) == {}


@needs_helm
def test_the_defaults_probe_liveness_and_readiness_with_a_pdb_json_logs_and_a_volume() -> None:
    rendered = objects(*TRIAL)
    assert {"StatefulSet", "Service", "PodDisruptionBudget"} <= set(rendered)
    assert not {"ServiceMonitor", "ScaledObject", "PrometheusRule"} & set(rendered)
    spec = rendered["StatefulSet"]["spec"]
    assert spec["replicas"] == 1
    worker = container(rendered)
    paths = {p: worker[p]["httpGet"]["path"] for p in ("startupProbe", "livenessProbe")}
    assert paths == {"startupProbe": "/health/live/", "livenessProbe": "/health/live/"}
    assert worker["readinessProbe"]["httpGet"]["path"] == "/health/ready/"
    config = rendered["t-article-runtime"]["data"]
    assert config["ARTICLE_RUNTIME_LOG_FORMAT"] == "json"
    assert config["ARTICLE_RUNTIME_STORE"] == "rocksdb://"
    assert config["ARTICLE_RUNTIME_UNKNOWN_SCHEMA_WAIT_S"] == "900"
    assert not {"ECP_STANDIN_QID", "ECP_STANDIN_NAME"} & set(config)
    (claim,) = spec["volumeClaimTemplates"]
    assert claim["metadata"]["name"] == "data"
    pdb = rendered["PodDisruptionBudget"]["spec"]
    assert pdb["maxUnavailable"] == 1
    assert pdb["selector"]["matchLabels"] == spec["selector"]["matchLabels"]


@needs_helm
def test_topics_made_by_the_platform_are_checked_under_the_names_it_gave_them() -> None:
    """README, topics: check mode, a prefix, one exact name; KEDA follows the ingested one."""
    rendered = objects(
        *EVERYTHING,
        "--set",
        "topics.mode=check",
        "--set",
        "topics.prefix=team-a.",
        "--set-json",
        'topics.names={"ecp.verdict": "classifier.verdicts"}',
    )
    config = rendered["t-article-runtime"]["data"]
    assert config["ARTICLE_RUNTIME_TOPICS"] == "check"
    assert config["ARTICLE_RUNTIME_TOPIC_PREFIX"] == "team-a."
    assert config["ARTICLE_RUNTIME_TOPIC_ECP_VERDICT"] == "classifier.verdicts"
    (trigger,) = rendered["ScaledObject"]["spec"]["triggers"]
    assert trigger["metadata"]["topic"] == "team-a.article.ingested"
    defaults = objects(*EVERYTHING)
    assert defaults["t-article-runtime"]["data"]["ARTICLE_RUNTIME_TOPICS"] == "create"
    (trigger,) = defaults["ScaledObject"]["spec"]["triggers"]
    assert trigger["metadata"]["topic"] == "article.ingested"


@needs_helm
def test_without_persistence_the_tables_sit_in_an_empty_dir() -> None:
    rendered = objects(
        *TRIAL, "--set", "persistence.enabled=false", "--set", "worker.store=memory://"
    )
    spec = rendered["StatefulSet"]["spec"]
    assert "volumeClaimTemplates" not in spec
    volumes = {v["name"]: v for v in spec["template"]["spec"]["volumes"]}
    assert volumes["data"] == {"name": "data", "emptyDir": {}}
    assert rendered["t-article-runtime"]["data"]["ARTICLE_RUNTIME_STORE"] == "memory://"


@needs_helm
def test_the_ecp_stand_in_is_off_unless_enabled_and_never_through_extra_env() -> None:
    on = [*TRIAL, "--set", "ecpStandin.enabled=true", "--set", "ecpStandin.qid=Q155"]
    assert "ecpStandin.qid and ecpStandin.name" in refused(*on)
    rendered = objects(*on, "--set", "ecpStandin.name=Brazil")
    config = rendered["t-article-runtime"]["data"]
    assert (config["ECP_STANDIN_QID"], config["ECP_STANDIN_NAME"]) == ("Q155", "Brazil")
    assert "use ecpStandin.enabled" in refused(*TRIAL, "--set", "extraEnv.ECP_STANDIN_QID=Q1")


@needs_helm
def test_a_dev_secret_holds_exactly_the_keys_the_pod_reads(providers_file: str) -> None:
    dev = [*BOOTSTRAP, "-f", providers_file, "--set", "secret.create=true"]
    assert "secret.data has no OPENAI_API_KEY" in refused(*dev)
    rendered = objects(*dev, "--set", "secret.data.OPENAI_API_KEY=sk-dev")
    assert rendered["Secret"]["stringData"] == {"OPENAI_API_KEY": "sk-dev"}
    assert secret_env(rendered) == {"OPENAI_API_KEY": ("t-article-runtime", "OPENAI_API_KEY")}
    assert "secret.existingSecret" in refused(*BOOTSTRAP, "-f", providers_file)


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
    shipped = json.loads(rendered["t-article-runtime-dashboard"]["data"]["article-runtime.json"])
    assert shipped == json.loads(DASHBOARD.read_text())


@needs_helm
def test_what_the_worker_cannot_run_with_is_refused_with_the_setting_named() -> None:
    cases = {
        "kafka.bootstrapServers is required": ["--set", "allowNoProviders=true"],
        "kafka.partitions": [*TRIAL, "--set", "replicaCount=4"],
        "kafka.sasl.mechanism": [*TRIAL, "--set", "kafka.securityProtocol=SASL_SSL"],
        "kafka.sasl.username": [
            *TRIAL,
            "--set",
            "kafka.securityProtocol=SASL_SSL",
            "--set",
            "kafka.sasl.mechanism=PLAIN",
        ],
        "kafka.securityProtocol must be one of": [*TRIAL, "--set", "kafka.securityProtocol=TLS"],
        "does not use TLS": [*TRIAL, "--set", "kafka.tls.existingSecret=ca"],
        "kafka.tls.certificateKey and kafka.tls.keyKey": [
            *TRIAL,
            "--set",
            "kafka.securityProtocol=SSL",
            "--set",
            "kafka.tls.existingSecret=ca",
            "--set",
            "kafka.tls.certificateKey=c",
        ],
        "not both": [
            *TRIAL,
            "--set",
            "secret.create=true",
            "--set",
            "secret.existingSecret=s",
        ],
        "updateStrategy.type": [*TRIAL, "--set", "updateStrategy.type=Recreate"],
    }
    for message, args in cases.items():
        assert message in refused(*args), message


@needs_helm
def test_keda_is_refused_beyond_the_partition_count() -> None:
    assert "kafka.partitions" in refused(*EVERYTHING, "--set", "autoscaling.keda.maxReplicas=4")
    more = [*EVERYTHING, "--set", "kafka.partitions=6", "--set", "autoscaling.keda.maxReplicas=6"]
    assert objects(*more)["ScaledObject"]["spec"]["maxReplicaCount"] == 6


# -- upgrades ------------------------------------------------------------------------------


@needs_helm
def test_upgrades_roll_one_ready_pod_at_a_time_within_the_grace_period() -> None:
    spec = objects(*TRIAL)["StatefulSet"]["spec"]
    assert spec["updateStrategy"] == {"type": "RollingUpdate"}
    assert spec["minReadySeconds"] >= 10
    assert spec["podManagementPolicy"] == "Parallel"  # scaling only; updates still roll
    pod = spec["template"]["spec"]
    assert pod["terminationGracePeriodSeconds"] >= 30
    canary = [*TRIAL, "--set", "updateStrategy.rollingUpdate.partition=2"]
    assert objects(*canary)["StatefulSet"]["spec"]["updateStrategy"] == {
        "type": "RollingUpdate",
        "rollingUpdate": {"partition": 2},
    }
    assert objects(*TRIAL, "--set", "updateStrategy.type=OnDelete")["StatefulSet"]["spec"][
        "updateStrategy"
    ] == {"type": "OnDelete"}


def _checksums(*args: str) -> dict[str, str]:
    annotations = objects(*args)["StatefulSet"]["spec"]["template"]["metadata"]["annotations"]
    return {k: v for k, v in annotations.items() if k.startswith("checksum/")}


@needs_helm
def test_a_change_of_settings_providers_or_chart_secret_rolls_the_pods_and_nothing_else(
    providers_file: str,
) -> None:
    dev = [*BOOTSTRAP, "-f", providers_file, "--set", "secret.create=true"]
    base = _checksums(*dev, "--set", "secret.data.OPENAI_API_KEY=a")
    for change, rolls in (
        (["--set", "worker.callsInFlight=16"], "checksum/config"),
        (
            ["--set", "providers.article_sentiment_tags.runtime_primary.timeout_s=9"],
            "checksum/config",
        ),
        (["--set", "secret.data.OPENAI_API_KEY=b"], "checksum/secret"),
    ):
        key = "secret.data.OPENAI_API_KEY=a"
        changed = _checksums(*dev, "--set", key, *change)
        assert {k for k in base if base[k] != changed[k]} == {rolls}, change
    unrelated = _checksums(*dev, "--set", "secret.data.OPENAI_API_KEY=a", "--set", "replicaCount=2")
    assert unrelated == base


# -- metrics the chart asks for --------------------------------------------------------------


def exported_series() -> set[str]:
    """Every series name the worker's /metrics page can carry (no Faust app: idle)."""
    metrics = FlowMetrics()
    transport = SimpleNamespace(gate=CommitGate(), unknown_writers=None)
    no_app = SimpleNamespace(consumer=None, transport=transport)
    idle = SimpleNamespace(app=no_app, tables={}, bytes_in_flight={})
    metrics.registry.register(StateCollector(idle, lambda: []))  # type: ignore[arg-type]
    page = metrics.render().decode()
    exported = set(re.findall(r"^# TYPE (article_runtime_[a-z_]+) ", page, flags=re.MULTILINE))
    return {f"{n}{s}" for n in exported for s in ("", "_total", "_bucket", "_count", "_sum")}


def test_the_dashboard_asks_only_for_metrics_the_worker_exports() -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    queries = [t["expr"] for panel in dashboard["panels"] for t in panel["targets"]]
    asked = {name for q in queries for name in re.findall(r"article_runtime_[a-z_]+", q)}
    assert len(asked) >= 10
    assert asked <= exported_series(), asked - exported_series()


@needs_helm
def test_the_alert_rules_ask_only_for_metrics_the_worker_exports_of_this_release() -> None:
    rule = objects(*EVERYTHING)["PrometheusRule"]
    (group,) = rule["spec"]["groups"]
    alerts = {r["alert"]: r for r in group["rules"]}
    assert set(alerts) == {
        "ArticleRuntimeConsumerLagGrowing",
        "ArticleRuntimeTerminalRateHigh",
        "ArticleRuntimeNotReady",
        "ArticleRuntimeNoProviderAnswering",
    }
    series = exported_series()
    for name, alert in alerts.items():
        expr = alert["expr"]
        asked = set(re.findall(r"[a-z_]+(?=\{)", expr))
        assert asked and asked <= series, (name, asked - series)
        selectors = re.findall(r"\{([^}]*)\}", expr)
        assert selectors and all(
            s.startswith('job="t-article-runtime",namespace="default"') for s in selectors
        ), (name, selectors)
        assert alert["for"] and alert["labels"]["severity"] == "warning"
    own = [*EVERYTHING, "--set-string", 'metrics.prometheusRule.selector=app="x"']
    (group,) = objects(*own)["PrometheusRule"]["spec"]["groups"]
    assert all('{app="x"' in r["expr"] for r in group["rules"])
