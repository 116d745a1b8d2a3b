"""Run a worker as a real child process (demo, integration tests, throughput bench).

A separate process is what production runs and what SIGKILL can hit; the parent only talks to
it through Kafka and its web port.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from article_runtime.streams.kafka.connection import KafkaConnection
from article_runtime.streams.local.broker import stop_process_group
from article_runtime.streams.service.settings import APP_ID_ENV, WEB_HOST_ENV, WEB_PORT_ENV

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def total(samples: Samples, name: str, **labels: str) -> float:
    """The sum of ``name``'s samples whose labels include ``labels``."""
    wanted = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and wanted <= ls)


class WorkerStartError(RuntimeError):
    """The worker did not become ready; the message carries its log tail."""


class WorkerProcess:
    """``python -m article_runtime.streams.worker`` (or ``module``) with its own log file; ready
    once it owns partitions."""

    def __init__(
        self,
        connection: KafkaConnection,
        *,
        web_port: int,
        log_path: Path,
        app_id: str = "article-runtime",
        env: Mapping[str, str] | None = None,
        module: str = "article_runtime.streams.worker",  # or a benchmark's wrapper around it
    ) -> None:
        self.web_port, self.log_path, self.module = web_port, log_path, module
        self.env = {
            **os.environ,
            **(env or {}),
            **connection.environ(),
            APP_ID_ENV: app_id,
            WEB_PORT_ENV: str(web_port),
            WEB_HOST_ENV: "127.0.0.1",  # a local child: its peers reach it on loopback
            "PYTHONUNBUFFERED": "1",
        }
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, *, timeout_s: float = 90.0, need_partitions: bool = True) -> WorkerProcess:
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", self.module],
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise WorkerStartError(f"worker exited {self.process.returncode}\n{self.tail()}")
            health = self.get("/health/")
            if health is not None and (health["partitions"] or not need_partitions):
                return self
            time.sleep(0.25)
        self.kill()
        raise WorkerStartError(f"worker not ready after {timeout_s:.0f} s\n{self.tail()}")

    def get(self, path: str) -> dict[str, Any] | None:
        """A web view's JSON, or None when there is no answer (yet): not listening, 404, or
        503 while the worker recovers its tables."""
        answer = self.answer(path)
        if answer is None or answer[0] in (404, 503):
            return None
        return answer[1]

    def answer(self, path: str) -> tuple[int, dict[str, Any]] | None:
        """``(HTTP status, JSON body)`` of a web view, or None when nothing answers."""
        url = f"http://127.0.0.1:{self.web_port}{path}"
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            if error.code in (404, 503):
                return error.code, json.loads(error.read() or b"{}")
            raise
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            return None

    def metrics(self) -> Samples:
        """The worker's Prometheus samples: ``(name, labels) -> value``."""
        url = f"http://127.0.0.1:{self.web_port}/metrics"
        with urllib.request.urlopen(url, timeout=5) as response:
            text = response.read().decode()
        return {
            (s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(text)
            for s in family.samples
        }

    def exited(self) -> int | None:
        """The exit code once the process has ended; None while it runs (or never started)."""
        return None if self.process is None else self.process.poll()

    def kill(self) -> None:
        """SIGKILL: no shutdown, no commit: what a crashed node looks like to Kafka."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def stop(self, grace_s: float = 30.0) -> int | None:
        """SIGTERM and wait for Faust's graceful stop (commits what was acked); SIGKILL if it
        lingers. The exit code, or None when the worker was never started."""
        if self.process is None:
            return None
        stop_process_group(self.process, grace_s)
        return self.process.returncode

    def tail(self, lines: int = 40) -> str:
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def __enter__(self) -> WorkerProcess:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
