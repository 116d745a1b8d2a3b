"""``tools/prereqs.sh``, which every make target runs first: one line naming what the machine
lacks, nothing when all is there, and quick enough to run before every target.

The machine is faked with a PATH of stand-in tools that print the versions a test chooses.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "prereqs.sh"


def tool(folder: Path, name: str, output: str) -> None:
    """A stand-in for ``name`` that prints ``output`` on both streams, as java and node do."""
    path = folder / name
    path.write_text(f"#!/bin/sh\necho '{output}'\necho '{output}' >&2\n", encoding="utf-8")
    path.chmod(0o755)


def check(folder: Path, *needs: str) -> subprocess.CompletedProcess[str]:
    # The stand-ins and the shell's own tools only (sed is needed by the script).
    path = f"{folder}:/usr/bin:/bin"
    env = {"PATH": path, "GO": str(folder / "go")}
    return subprocess.run(
        ["/bin/sh", str(SCRIPT), *needs], capture_output=True, text=True, env=env, check=False
    )


def test_an_old_jdk_and_node_are_named_on_one_line(tmp_path: Path) -> None:
    tool(tmp_path, "java", 'openjdk version "11.0.2" 2019-01-15')
    tool(tmp_path, "node", "v18.19.0")
    tool(tmp_path, "npm", "10.2.3")
    done = check(tmp_path, "java", "node")
    assert done.returncode == 1
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert "JDK 17+ (java is 11)" in line
    assert "Node 20+ (node is v18)" in line
    assert "Prerequisites" in line


def test_recent_enough_tools_pass_silently(tmp_path: Path) -> None:
    tool(tmp_path, "java", 'openjdk version "21.0.1" 2023-10-17')
    tool(tmp_path, "node", "v20.20.2")
    tool(tmp_path, "npm", "10.8.2")
    tool(tmp_path, "go", "go version go1.26.8 linux/amd64")
    tool(tmp_path, "mvn", "Apache Maven 3.8.7")
    done = check(tmp_path, "java", "node", "go", "maven")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_absent_tools_are_each_named(tmp_path: Path) -> None:
    # GO names a file that does not exist in the stand-ins folder, which holds nothing.
    done = check(tmp_path, "go", "apt")
    assert "Go (go" in done.stderr
    assert done.returncode == 1
    assert len(done.stderr.splitlines()) == 1


def test_an_unknown_need_is_a_usage_error(tmp_path: Path) -> None:
    done = check(tmp_path, "cobol")
    assert done.returncode == 2
    assert "unknown need cobol" in done.stderr


def test_the_whole_check_takes_well_under_a_second() -> None:
    """What a target checks once .venv exists (the rest runs only until it is installed)."""
    start = time.monotonic()
    subprocess.run(["/bin/sh", str(SCRIPT), "debian", "java"], capture_output=True, check=False)
    assert time.monotonic() - start < 0.8
