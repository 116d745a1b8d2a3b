"""A wheel built from the repository carries its prompts and schemas and works on its own.

The wheel is installed into a fresh virtual environment that sees the project's dependencies but
not its source tree, then loads both prompts and decodes an Avro message there.
"""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import article_runtime, json, sys
from article_runtime.llm.prompts import PROMPT_NAMES, load_prompt
from article_runtime.contracts import HYGIENE_OUTPUT, load_schema
from article_runtime.streams.kafka.codec import AvroCodec
from article_runtime.streams.kafka.topics import ECP_VERDICT
assert "site-packages" in article_runtime.__file__, article_runtime.__file__
prompts = [load_prompt(name).version for name in PROMPT_NAMES]
load_schema(HYGIENE_OUTPUT)
codec = AvroCodec()
record = json.loads(sys.argv[1])
decoded = codec.decode(codec.encode(ECP_VERDICT.schema, record), ECP_VERDICT.schema)
print(json.dumps(decoded, default=str))
"""


def test_wheel_loads_prompts_and_decodes_a_message_without_the_source_tree(
    tmp_path: Path,
) -> None:
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", wheels, ROOT],
        check=True,
    )
    (wheel,) = wheels.glob("article_runtime-*.whl")
    env_dir = tmp_path / "env"
    venv.create(env_dir, with_pip=False)
    site = Path(sysconfig.get_path("purelib", vars={"base": env_dir, "platbase": env_dir}))
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--target", site, wheel],
        check=True,
    )
    # The project's dependencies, but not its editable install: paths listed in a .pth file
    # are added to sys.path without running the .pth files found there.
    deps = Path(sysconfig.get_path("purelib"))
    (site / "dependencies.pth").write_text(f"{deps}\n", "utf-8")
    verdict = (
        '{"article_id": "a1", "approved": true, "entity": {"qid": "Q155", "name": "Brazil",'
        ' "identity": null}, "article_hash": "h", "classifier_version": "t",'
        ' "decided_at": 1767225600000}'
    )
    result = subprocess.run(
        [env_dir / "bin" / "python", "-c", PROBE, verdict],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert '"qid": "Q155"' in result.stdout
