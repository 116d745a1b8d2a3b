"""Where the prompt files and schemas live, in a checkout and in an installed wheel alike.

``prompts`` and ``schemas`` in this folder are links to the repository's top-level folders, so
the repository keeps one copy of each file and a built wheel carries them as package data
(``pyproject.toml``). Everything that reads a prompt or a schema finds it through here.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["AVRO_DIR", "JSON_SCHEMA_DIR", "PROMPT_DIR"]

_HERE = Path(__file__).resolve().parent
PROMPT_DIR = _HERE / "prompts"
JSON_SCHEMA_DIR = _HERE / "schemas" / "json"
AVRO_DIR = _HERE / "schemas" / "avro"
