"""Topic names are configurable (a prefix, per-topic overrides) and checked, and the check mode's
problems each name the topic, what it has and what it needs."""

from __future__ import annotations

import string
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from article_runtime.streams.kafka.decoding import dedup_key
from article_runtime.streams.kafka.topic_check import Wanted, config_problems, count_problems
from article_runtime.streams.kafka.topics import (
    ARTICLE_INGESTED,
    BY_NAME,
    ECP_VERDICT,
    MAX_MESSAGE_BYTES,
    PREFIX_ENV,
    TOPICS,
    TopicNameError,
    topic_names,
    use_names,
)
from article_runtime.streams.service.settings import SettingsError, WorkerSettings

# Written out here, not taken from the code: Kafka's legal topic characters.
LEGAL = string.ascii_letters + string.digits + "._-"
legal_prefix = st.text(alphabet=LEGAL, max_size=30).filter(lambda p: p not in (".", ".."))


@pytest.fixture(autouse=True)
def names_from_the_environment() -> Iterator[None]:
    yield
    use_names(None)


@given(legal_prefix)
def test_a_prefix_goes_before_every_contract_name(prefix: str) -> None:
    found = topic_names({PREFIX_ENV: prefix})
    assert found == {t.key: prefix + t.key for t in TOPICS}


@given(legal_prefix, st.text(alphabet=LEGAL, min_size=3, max_size=40))
def test_an_override_is_the_exact_name_and_the_others_keep_the_prefix(
    prefix: str, name: str
) -> None:
    env = {PREFIX_ENV: prefix, "ARTICLE_RUNTIME_TOPIC_ECP_VERDICT": name}
    if name in {prefix + t.key for t in TOPICS if t is not ECP_VERDICT}:
        with pytest.raises(TopicNameError, match="several topics"):
            topic_names(env)
        return
    found = topic_names(env)
    assert found["ecp.verdict"] == name
    assert found["article.ingested"] == prefix + "article.ingested"


@pytest.mark.parametrize("bad", ["a/b", "ä", "..", "x" * 250, "a b"])
def test_a_name_kafka_refuses_is_a_settings_error_naming_the_variable(bad: str) -> None:
    env = {
        "KAFKA_BOOTSTRAP_SERVERS": "k:9092",
        "ARTICLE_RUNTIME_TOPIC_ARTICLE_INGESTED": bad,
    }
    with pytest.raises(SettingsError, match="ARTICLE_RUNTIME_TOPIC_ARTICLE_INGESTED"):
        WorkerSettings.from_env(env)


def test_the_worker_uses_the_names_its_settings_resolved() -> None:
    env = {"KAFKA_BOOTSTRAP_SERVERS": "k:9092", PREFIX_ENV: "team-a."}
    settings = WorkerSettings.from_env(env)
    assert settings.topics == "create"
    use_names(settings.topic_names)
    assert ARTICLE_INGESTED.name == "team-a.article.ingested"
    assert BY_NAME["team-a.ecp.verdict"] is ECP_VERDICT
    assert "ecp.verdict" not in BY_NAME
    record = {"article_id": "a", "received_at": 1, "version": None}
    assert (
        dedup_key("team-a.article.ingested", record)[1:]
        == dedup_key("team-a.article.ingested.repartition", record)[1:]
    )


def test_the_topics_mode_is_create_or_check() -> None:
    env = {"KAFKA_BOOTSTRAP_SERVERS": "k:9092", "ARTICLE_RUNTIME_TOPICS": "check"}
    assert WorkerSettings.from_env(env).topics == "check"
    with pytest.raises(SettingsError, match="ARTICLE_RUNTIME_TOPICS"):
        WorkerSettings.from_env({**env, "ARTICLE_RUNTIME_TOPICS": "manage"})


@given(
    st.dictionaries(st.sampled_from("abcdef"), st.integers(1, 4), max_size=6),
    st.integers(1, 4),
)
def test_every_missing_or_odd_sized_topic_is_one_line(counts: dict[str, int], default: int) -> None:
    wanted = [Wanted(n) for n in "abcdef"]
    lines = count_problems(counts, wanted, default)
    missing = [n for n in "abcdef" if n not in counts]
    # The count most of them have (ties: any of the tied), else the default.
    tallies = [list(counts.values()).count(c) for c in counts.values()]
    majority = {c for c, t in zip(counts.values(), tallies, strict=True) if t == max(tallies)}
    odd = [n for n in counts if counts[n] not in majority]
    assert len(lines) >= len(missing) + len(odd)
    for name in missing:
        assert sum(f"topic {name} does not exist" in line for line in lines) == 1
    for name in odd:
        assert (
            sum(line.startswith(f"topic {name} has {counts[name]} partitions") for line in lines)
            == 1
        )


def test_a_config_problem_says_what_the_topic_has_and_needs() -> None:
    flow, changelog = Wanted("t"), Wanted("c", compacted=True)
    assert config_problems(flow, "delete", MAX_MESSAGE_BYTES) == []
    assert config_problems(changelog, "compact", MAX_MESSAGE_BYTES * 2) == []
    (line,) = config_problems(flow, "compact,delete", MAX_MESSAGE_BYTES)
    assert "topic t has cleanup.policy=compact,delete" in line
    (line,) = config_problems(changelog, "delete", MAX_MESSAGE_BYTES)
    assert "topic c has cleanup.policy=delete" in line and "compact" in line
    (line,) = config_problems(flow, "delete", 1048588)
    assert "max.message.bytes=1048588" in line and str(MAX_MESSAGE_BYTES) in line
    assert len(config_problems(changelog, "delete", 1)) == 2
