"""A real single-node Apache Kafka (KRaft) on 127.0.0.1 for tests and the demo.

Integration tests must talk to a real broker, and this machine has Java and Maven Central but no
Docker: so we fetch the jars (``kafka_jars``), format KRaft storage and run ``kafka.Kafka``
ourselves. ``KAFKA_BOOTSTRAP_SERVERS`` points everything at an existing cluster instead.

Run ``python -m streams.local_kafka --keep-running`` to get a broker address for the demo.
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
from collections.abc import Iterator
from pathlib import Path

from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient

from streams.kafka_jars import DEFAULT_KAFKA_VERSION, fetch_kafka
from streams.topics import PARTITIONS

__all__ = [
    "BrokerStartError",
    "LocalBroker",
    "fetch_kafka",
    "free_ports",
    "local_broker",
    "local_kafka",
    "main",
    "stop_process_group",
]

BOOTSTRAP_ENV = "KAFKA_BOOTSTRAP_SERVERS"
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


def local_kafka(
    *,
    partitions: int = PARTITIONS,
    version: str = DEFAULT_KAFKA_VERSION,
    start_timeout_s: float = 60.0,
) -> contextlib.AbstractContextManager[str]:
    """Yield a bootstrap address: ``$KAFKA_BOOTSTRAP_SERVERS``, or a broker started for the block.

    The broker runs in its own process group and is stopped (SIGTERM, then SIGKILL) on exit,
    also when the block raises; its temp dir (data, logs) is removed.
    """
    existing = os.environ.get(BOOTSTRAP_ENV, "").strip()
    if existing:
        return contextlib.nullcontext(existing)
    return _address_of(
        local_broker(partitions=partitions, version=version, start_timeout_s=start_timeout_s)
    )


@contextlib.contextmanager
def _address_of(brokers: contextlib.AbstractContextManager[LocalBroker]) -> Iterator[str]:
    with brokers as broker:
        yield broker.address


@contextlib.contextmanager
def local_broker(
    *,
    partitions: int = PARTITIONS,
    version: str = DEFAULT_KAFKA_VERSION,
    start_timeout_s: float = 60.0,
) -> Iterator[LocalBroker]:
    """A broker this process started and may kill and restart (fault tests); always our own,
    whatever ``$KAFKA_BOOTSTRAP_SERVERS`` says. Stopped and its temp dir removed on exit."""
    libs = fetch_kafka(version)
    _remove_orphans()
    work = Path(tempfile.mkdtemp(prefix=_WORK_PREFIX))
    (work / "owner.pid").write_text(str(os.getpid()), encoding="utf-8")
    broker: LocalBroker | None = None
    try:
        broker_port, controller_port = free_ports(2)
        properties = _write_config(work, broker_port, controller_port, partitions)
        _format_storage(libs, work, properties)
        broker = LocalBroker(libs, work, properties, broker_port, start_timeout_s)
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
        self, libs: Path, work: Path, properties: Path, port: int, start_timeout_s: float
    ) -> None:
        self.libs, self.work, self.properties = libs, work, properties
        self.address = f"127.0.0.1:{port}"
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
            _wait_until_serving(self.process, self.address, self.work, self.start_timeout_s)
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


def _write_config(work: Path, broker_port: int, controller_port: int, partitions: int) -> Path:
    (work / "logs").mkdir()
    (work / "log4j2.properties").write_text(
        _LOG4J2.format(log=work / "logs" / "server.log"), encoding="utf-8"
    )
    settings = {
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


def _format_storage(libs: Path, work: Path, properties: Path) -> None:
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
    process: subprocess.Popen[bytes], address: str, work: Path, timeout_s: float
) -> None:
    """A real client round trip (metadata with a broker in it), bounded by ``timeout_s``."""
    port = int(address.rsplit(":", 1)[1])
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise BrokerStartError(
                f"broker exited with {process.returncode} before serving:\n{_log_tail(work)}"
            )
        if _port_open(port):
            admin = AdminClient({"bootstrap.servers": address, "log_level": 0})
            with contextlib.suppress(KafkaException):
                if admin.list_topics(timeout=5).brokers:
                    return
        time.sleep(0.2)
    raise BrokerStartError(
        f"broker not serving on {address} after {timeout_s:.0f}s:\n{_log_tail(work)}"
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
    with local_kafka(partitions=args.partitions, version=args.version) as bootstrap:
        print(bootstrap, flush=True)
        if args.keep_running:
            with contextlib.suppress(KeyboardInterrupt):
                signal.pause()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
