"""A real single-node Apache Kafka (KRaft) on 127.0.0.1 for tests and the demo.

Integration tests must talk to a real broker, and this machine has Java and Maven Central but no
Docker: so we fetch the jars (``kafka_jars``), format KRaft storage and run ``kafka.Kafka``
ourselves. ``KAFKA_BOOTSTRAP_SERVERS`` points everything at an existing cluster instead.

With a ``SaslSsl`` listener the broker serves clients only over SASL_SSL (SCRAM users made at
format time, a keystore the caller made), as a managed cluster does; the broker talks to itself
on a plaintext loopback listener that clients are not told about.

Run ``python -m article_runtime.streams.local.broker --keep-running`` to get a broker address for
the demo.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from article_runtime.streams.kafka.connection import BOOTSTRAP_ENV, KafkaConnection
from article_runtime.streams.kafka.preflight import ClusterRefused, preflight
from article_runtime.streams.kafka.topics import PARTITIONS
from article_runtime.streams.local.kafka_jars import DEFAULT_KAFKA_VERSION, fetch_kafka

__all__ = [
    "BOOTSTRAP_ENV",
    "BrokerStartError",
    "LocalBroker",
    "SaslSsl",
    "fetch_kafka",
    "free_ports",
    "local_broker",
    "local_kafka",
    "main",
    "stop_process_group",
]

_WORK_PREFIX = "article-runtime-kafka-"
# A test/demo broker: small heap, and C1-only JIT plus serial GC, which start it about 40%
# faster on two cores (the format step: 3.4 s -> 2.0 s). Not settings for production.
JVM_FLAGS = ("-Xms256m", "-Xmx768m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")

_LOG4J2 = """status = warn
appender.file.type = File
appender.file.name = FILE
appender.file.fileName = {log}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = FILE
logger.state.name = state.change.logger
logger.state.level = WARN
logger.request.name = kafka.request.logger
logger.request.level = WARN
"""


class BrokerStartError(RuntimeError):
    """The broker did not come up; the message carries its log tail."""


@dataclass(frozen=True)
class SaslSsl:
    """A SASL_SSL client listener: the broker's keystore (PKCS12: its certificate, signed by
    ``ca``, and key) and the SCRAM users created when the storage is formatted."""

    keystore: Path
    keystore_password: str
    ca: Path
    users: Mapping[str, str]  # username -> password; the first is the one ``connection`` uses
    mechanism: str = "SCRAM-SHA-512"

    def connection(self, address: str) -> KafkaConnection:
        username, password = next(iter(self.users.items()))
        return KafkaConnection(
            address,
            security_protocol="SASL_SSL",
            sasl_mechanism=self.mechanism,
            sasl_username=username,
            sasl_password=password,
            ssl_ca_location=str(self.ca),
        )


def local_kafka(
    *,
    partitions: int = PARTITIONS,
    version: str = DEFAULT_KAFKA_VERSION,
    start_timeout_s: float = 60.0,
) -> contextlib.AbstractContextManager[KafkaConnection]:
    """Yield a connection: the cluster ``$KAFKA_BOOTSTRAP_SERVERS`` (with the other connection
    settings of ``article_runtime.streams.kafka.connection``) names, or a broker started for the
    block.

    The broker runs in its own process group and is stopped (SIGTERM, then SIGKILL) on exit,
    also when the block raises; its temp dir (data, logs) is removed.
    """
    if os.environ.get(BOOTSTRAP_ENV, "").strip():
        return contextlib.nullcontext(KafkaConnection.from_env())
    return _connection_of(
        local_broker(partitions=partitions, version=version, start_timeout_s=start_timeout_s)
    )


@contextlib.contextmanager
def _connection_of(
    brokers: contextlib.AbstractContextManager[LocalBroker],
) -> Iterator[KafkaConnection]:
    with brokers as broker:
        yield broker.connection


@contextlib.contextmanager
def local_broker(
    *,
    partitions: int = PARTITIONS,
    version: str = DEFAULT_KAFKA_VERSION,
    start_timeout_s: float = 60.0,
    sasl_ssl: SaslSsl | None = None,
) -> Iterator[LocalBroker]:
    """A broker this process started and may kill and restart (fault tests); always our own,
    whatever ``$KAFKA_BOOTSTRAP_SERVERS`` says. Stopped and its temp dir removed on exit.

    Clients reach it over PLAINTEXT, or only over SASL_SSL when ``sasl_ssl`` is given."""
    libs = fetch_kafka(version)
    _remove_orphans()
    work = Path(tempfile.mkdtemp(prefix=_WORK_PREFIX))
    (work / "owner.pid").write_text(str(os.getpid()), encoding="utf-8")
    broker: LocalBroker | None = None
    try:
        broker_port, controller_port, internal_port = free_ports(3)
        settings = _settings(work, broker_port, controller_port, partitions)
        if sasl_ssl is not None:
            settings |= _sasl_ssl_settings(sasl_ssl, broker_port, controller_port, internal_port)
        properties = _write_config(work, settings)
        _format_storage(libs, work, properties, sasl_ssl)
        address = f"127.0.0.1:{broker_port}"
        connection = sasl_ssl.connection(address) if sasl_ssl else KafkaConnection(address)
        broker = LocalBroker(libs, work, properties, connection, start_timeout_s)
        broker.start()
        yield broker
    finally:
        if broker is not None:
            broker.stop()
        shutil.rmtree(work, ignore_errors=True)


class LocalBroker:
    """One KRaft node whose ports, config and log dir outlive its process: ``kill`` it like a
    crashed machine, ``start`` it again on the same address with the same data."""

    def __init__(
        self,
        libs: Path,
        work: Path,
        properties: Path,
        connection: KafkaConnection,
        start_timeout_s: float,
    ) -> None:
        self.libs, self.work, self.properties = libs, work, properties
        self.connection = connection  # how clients reach it (with a SCRAM user's login)
        self.address = connection.bootstrap
        self.start_timeout_s = start_timeout_s
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self) -> None:
        """Start the broker and return once a client round trip succeeds."""
        if self.running:
            raise BrokerStartError(f"broker on {self.address} is already running")
        self.process = _start(self.libs, self.work, self.properties)
        try:
            _wait_until_serving(self.process, self.connection, self.work, self.start_timeout_s)
        except BrokerStartError:
            self.kill()
            raise

    def kill(self) -> None:
        """SIGKILL: no controlled shutdown, unflushed data as the page cache left it."""
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process is not None:
            stop_process_group(self.process)

    def log_tail(self, lines: int = 40) -> str:
        return _log_tail(self.work, lines)


def _remove_orphans() -> None:
    """Temp dirs of runs whose Python process was killed (its broker died with it)."""
    for work in Path(tempfile.gettempdir()).glob(_WORK_PREFIX + "*"):
        try:
            os.kill(int((work / "owner.pid").read_text(encoding="utf-8")), 0)
        except ProcessLookupError:
            shutil.rmtree(work, ignore_errors=True)
        except (OSError, ValueError):
            continue  # not ours to judge: unreadable, or a live process of another user


def free_ports(count: int) -> list[int]:
    """Ports the kernel just handed out, held together so they differ from each other."""
    sockets = [socket.socket(socket.AF_INET, socket.SOCK_STREAM) for _ in range(count)]
    try:
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [int(sock.getsockname()[1]) for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def _settings(
    work: Path, broker_port: int, controller_port: int, partitions: int
) -> dict[str, str]:
    return {
        "process.roles": "broker,controller",
        "node.id": "1",
        "controller.quorum.bootstrap.servers": f"127.0.0.1:{controller_port}",
        "listeners": f"PLAINTEXT://127.0.0.1:{broker_port},CONTROLLER://127.0.0.1:{controller_port}",
        "advertised.listeners": f"PLAINTEXT://127.0.0.1:{broker_port}",
        "controller.listener.names": "CONTROLLER",
        "inter.broker.listener.name": "PLAINTEXT",
        "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
        "log.dirs": str(work / "data"),
        "num.partitions": str(partitions),
        "offsets.topic.num.partitions": str(partitions),
        "offsets.topic.replication.factor": "1",
        "transaction.state.log.num.partitions": str(partitions),
        "transaction.state.log.replication.factor": "1",
        "transaction.state.log.min.isr": "1",
        "share.coordinator.state.topic.replication.factor": "1",
        "share.coordinator.state.topic.min.isr": "1",
        "group.initial.rebalance.delay.ms": "0",
    }


def _sasl_ssl_settings(
    listener: SaslSsl, broker_port: int, controller_port: int, internal_port: int
) -> dict[str, str]:
    """Clients on SASL_SSL (SCRAM); the broker itself on a loopback PLAINTEXT listener."""
    mechanism = listener.mechanism.lower()
    return {
        "listeners": (
            f"SASL_SSL://127.0.0.1:{broker_port},INTERNAL://127.0.0.1:{internal_port},"
            f"CONTROLLER://127.0.0.1:{controller_port}"
        ),
        "advertised.listeners": (
            f"SASL_SSL://127.0.0.1:{broker_port},INTERNAL://127.0.0.1:{internal_port}"
        ),
        "inter.broker.listener.name": "INTERNAL",
        "listener.security.protocol.map": (
            "CONTROLLER:PLAINTEXT,INTERNAL:PLAINTEXT,SASL_SSL:SASL_SSL"
        ),
        "sasl.enabled.mechanisms": listener.mechanism,
        f"listener.name.sasl_ssl.{mechanism}.sasl.jaas.config": (
            "org.apache.kafka.common.security.scram.ScramLoginModule required;"
        ),
        "ssl.keystore.type": "PKCS12",
        "ssl.keystore.location": str(listener.keystore),
        "ssl.keystore.password": listener.keystore_password,
    }


def _write_config(work: Path, settings: Mapping[str, str]) -> Path:
    (work / "logs").mkdir()
    (work / "log4j2.properties").write_text(
        _LOG4J2.format(log=work / "logs" / "server.log"), encoding="utf-8"
    )
    path = work / "server.properties"
    path.write_text("".join(f"{key}={value}\n" for key, value in settings.items()), "utf-8")
    return path


def _java() -> str:
    java = shutil.which("java")
    if java is None:
        raise BrokerStartError("java is not on PATH: Kafka needs a JDK 17+")
    return java


def _cluster_id() -> str:
    """Kafka's ``Uuid.randomUuid()`` text form, without paying a JVM start for ``random-uuid``."""
    while True:
        text = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode("ascii").rstrip("=")
        if not text.startswith("-"):  # Kafka rejects ids that look like a command-line flag
            return text


def _format_storage(libs: Path, work: Path, properties: Path, sasl_ssl: SaslSsl | None) -> None:
    """KRaft storage, with the SCRAM users in its first metadata (no broker needed to add them)."""
    scram = []
    if sasl_ssl is not None:
        scram = [
            f"--add-scram={sasl_ssl.mechanism}=[name={name},password={password}]"
            for name, password in sasl_ssl.users.items()
        ]
    command = [
        _java(),
        *JVM_FLAGS,
        f"-Dlog4j2.configurationFile={work / 'log4j2.properties'}",
        "-cp",
        f"{libs}/*",
        "kafka.tools.StorageTool",
        "format",
        "-t",
        _cluster_id(),
        "-c",
        str(properties),
        "--standalone",
        *scram,
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=work)
    if done.returncode != 0:
        raise BrokerStartError(
            f"kafka storage format failed:\n{(done.stdout + done.stderr)[-2000:]}"
        )


def _die_with_parent() -> list[str]:
    """SIGKILL the broker if the Python process dies without running its cleanup.

    util-linux ``setpriv`` sets the parent-death signal and execs java (same pid); without it
    we rely on the context manager alone. No ``preexec_fn``: librdkafka threads may be running.
    """
    setpriv = shutil.which("setpriv")
    return [setpriv, "--pdeathsig", "KILL"] if setpriv else []


def _start(libs: Path, work: Path, properties: Path) -> subprocess.Popen[bytes]:
    command = [
        *_die_with_parent(),
        _java(),
        *JVM_FLAGS,
        "-Djava.awt.headless=true",
        f"-Dlog4j2.configurationFile={work / 'log4j2.properties'}",
        f"-Dkafka.logs.dir={work / 'logs'}",
        "-cp",
        f"{libs}/*",
        "kafka.Kafka",
        str(properties),
    ]
    with (work / "logs" / "console.log").open("ab") as console:
        return subprocess.Popen(
            command,
            cwd=work,
            stdin=subprocess.DEVNULL,
            stdout=console,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # own process group: stopping it reaches every child
        )


def _port_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _wait_until_serving(
    process: subprocess.Popen[bytes], connection: KafkaConnection, work: Path, timeout_s: float
) -> None:
    """A real client round trip (metadata with a broker in it, over the clients' listener with
    their login), bounded by ``timeout_s``."""
    port = int(connection.bootstrap.rsplit(":", 1)[1])
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise BrokerStartError(
                f"broker exited with {process.returncode} before serving:\n{_log_tail(work)}"
            )
        if _port_open(port):
            with contextlib.suppress(ClusterRefused):  # a broker still starting refuses too
                preflight(connection, timeout_s=5)
                return
        time.sleep(0.2)
    raise BrokerStartError(
        f"broker not serving on {connection.bootstrap} after {timeout_s:.0f}s:\n{_log_tail(work)}"
    )


def _log_tail(work: Path, lines: int = 40) -> str:
    parts = []
    for name in ("console.log", "server.log"):
        path = work / "logs" / name
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:]
            parts.append(f"--- {name} ---\n" + "\n".join(text))
    return "\n".join(parts) or "(no broker log)"


def stop_process_group(process: subprocess.Popen[bytes], grace_s: float = 30.0) -> None:
    """SIGTERM the process group (clean controlled shutdown), SIGKILL if it lingers."""
    if process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--keep-running", action="store_true", help="serve until interrupted")
    parser.add_argument("--partitions", type=int, default=PARTITIONS)
    parser.add_argument("--version", default=DEFAULT_KAFKA_VERSION, help="Apache Kafka version")
    args = parser.parse_args(argv)
    # SIGTERM unwinds like Ctrl-C, so the broker is stopped and its temp dir removed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with local_kafka(partitions=args.partitions, version=args.version) as connection:
        print(connection.bootstrap, flush=True)
        if args.keep_running:
            with contextlib.suppress(KeyboardInterrupt):
                signal.pause()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
