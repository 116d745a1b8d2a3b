"""CPU seconds of a process and of the whole machine, read from Linux ``/proc``."""

from __future__ import annotations

import os
from pathlib import Path


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a live process so far (Linux /proc)."""
    return sum(cpu_split(pid))


def cpu_split(pid: int, thread: int | None = None) -> tuple[float, float]:
    """(user, system) CPU time of a live process so far, or of one of its threads: system is
    the kernel's, in system calls made for it (sockets, polling)."""
    where = f"/proc/{pid}" if thread is None else f"/proc/{pid}/task/{thread}"
    fields = Path(f"{where}/stat").read_text().rsplit(")", 1)[1].split()
    hz = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / hz, int(fields[12]) / hz


def machine_cpu_seconds() -> tuple[float, float]:
    """(busy, total) CPU seconds of every core since boot (Linux /proc/stat)."""
    ticks = _all_cores()
    idle = ticks[3] + ticks[4]  # idle, iowait
    hz = os.sysconf("SC_CLK_TCK")
    return (sum(ticks) - idle) / hz, sum(ticks) / hz


def stolen_cpu_seconds() -> float:
    """CPU seconds of every core since boot that the hypervisor gave to someone else while
    this machine had work for them (/proc/stat's steal): a virtual machine's neighbours."""
    return _all_cores()[7] / os.sysconf("SC_CLK_TCK")


def _all_cores() -> list[int]:
    """/proc/stat's first line: ticks of every core together, by kind of time."""
    return [int(n) for n in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
