"""A next release that adds a schema, for rolling-upgrade tests: its schema directory and a
worker of it.

``schemas(into)`` copies the shipped Avro contract and evolves ``ArticleIngested`` the way a
compatible release would (one optional field with a default); the version it replaces moves
to ``history/``, so the next release reads both and writes the new one. ``python -m
tests.support.next_release`` runs the worker with a codec over the directory named in
``NEXT_RELEASE_SCHEMAS_ENV``: a pod of that release.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from article_runtime.resources import AVRO_DIR
from article_runtime.streams.kafka import codec
from article_runtime.streams.worker.main import main as worker

NEXT_RELEASE_SCHEMAS_ENV = "ARTICLE_RUNTIME_TEST_NEXT_RELEASE_SCHEMAS"
EVOLVED = "ArticleIngested"
NEW_FIELD = {
    "name": "crawl_note",
    "type": ["null", "string"],
    "default": None,
    "doc": "A field the next release adds (rolling-upgrade tests only).",
}


def schemas(into: Path, *, field: dict[str, Any] = NEW_FIELD) -> Path:
    """The next release's schema directory under ``into``; ``field`` is what it adds."""
    into.mkdir(parents=True, exist_ok=True)
    (into / "history").mkdir(exist_ok=True)
    for path in AVRO_DIR.glob("*.avsc"):
        shutil.copy(path, into / path.name)
    for path in (AVRO_DIR / "history").glob("*.avsc"):
        shutil.copy(path, into / "history" / path.name)
    current = into / f"{EVOLVED}.avsc"
    schema = json.loads(current.read_text("utf-8"))
    shutil.copy(current, into / "history" / f"{EVOLVED}.before-next.avsc")
    schema["fields"].append(field)
    current.write_text(json.dumps(schema, indent=2), "utf-8")
    return into


def codec_of(directory: Path) -> codec.AvroCodec:
    return codec.AvroCodec(directory)


def main() -> None:
    directory = Path(os.environ[NEXT_RELEASE_SCHEMAS_ENV])
    shipped = codec.AvroCodec.__init__

    def next_release(self: codec.AvroCodec, schema_dir: Path = directory, **registry: Any) -> None:
        shipped(self, schema_dir, **registry)

    codec.AvroCodec.__init__ = next_release  # type: ignore[method-assign]
    worker()


if __name__ == "__main__":
    main()
