"""Apache Kafka's jars from Maven Central, cached per version.

Maven Central is the one place that serves Kafka on every machine we run on (no Docker, no
other downloads), so a tiny pom plus ``dependency:copy-dependencies`` is the distribution.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

DEFAULT_KAFKA_VERSION = "4.4.0"
# log4j2 binding for Kafka's slf4j 1.x logging: the kafka_2.13 pom leaves it to the distribution.
_LOG4J_VERSION = "2.25.5"
_COMPLETE = ".complete"

_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>article-runtime</groupId>
  <artifactId>kafka-jars</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka_2.13</artifactId>
      <version>{kafka}</version>
    </dependency>
    <dependency>
      <groupId>org.apache.logging.log4j</groupId>
      <artifactId>log4j-slf4j-impl</artifactId>
      <version>{log4j}</version>
    </dependency>
  </dependencies>
</project>
"""


class KafkaFetchError(RuntimeError):
    """Maven could not deliver the jars (offline, unknown version, broken cache)."""


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "article-runtime"


def fetch_kafka(version: str = DEFAULT_KAFKA_VERSION) -> Path:
    """Return the ``libs`` directory holding Kafka ``version`` and its runtime dependencies.

    Idempotent: a complete cache is returned at once. Concurrent callers serialise on a lock
    file, and the directory appears by an atomic rename, so no caller sees a half-copied set.
    """
    home = cache_root() / f"kafka-{version}"
    libs = home / "libs"
    if (libs / _COMPLETE).is_file():
        return libs
    home.mkdir(parents=True, exist_ok=True)
    with (home / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (libs / _COMPLETE).is_file():  # another process finished while we waited
            return libs
        shutil.rmtree(libs, ignore_errors=True)
        staging = Path(tempfile.mkdtemp(prefix="libs-", dir=home))
        try:
            _copy_dependencies(version, staging)
            (staging / _COMPLETE).write_text(version + "\n", encoding="utf-8")
            staging.chmod(0o755)  # mkdtemp makes it 0700; the cache is plain files
            staging.rename(libs)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return libs


def _copy_dependencies(version: str, out: Path) -> None:
    mvn = shutil.which("mvn")
    if mvn is None:
        raise KafkaFetchError("mvn is not on PATH: install Maven to fetch Kafka")
    with tempfile.TemporaryDirectory(prefix="kafka-pom-") as work:
        pom = Path(work) / "pom.xml"
        pom.write_text(_POM.format(kafka=version, log4j=_LOG4J_VERSION), encoding="utf-8")
        command = [
            mvn,
            "-q",
            "-B",
            "-f",
            str(pom),
            "dependency:copy-dependencies",
            f"-DoutputDirectory={out}",
            "-DincludeScope=runtime",
        ]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = (done.stdout + done.stderr)[-2000:]
        raise KafkaFetchError(f"mvn failed for Kafka {version} (exit {done.returncode}):\n{tail}")
    if not (out / f"kafka_2.13-{version}.jar").is_file():
        raise KafkaFetchError(f"mvn finished but kafka_2.13-{version}.jar is missing in {out}")
