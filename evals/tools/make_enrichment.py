"""Build the enrichment cases only: ``make_cases --prompt article_sentiment_tags``.

    .venv/bin/python -m evals.tools.make_enrichment

Kept so the command the README and older notes give still works; the entries now live in
``cases/article_sentiment_tags.yaml``.
"""

from __future__ import annotations

import sys

from evals.paths import ENRICHMENT
from evals.tools.make_cases import main

if __name__ == "__main__":
    sys.exit(main(["--prompt", ENRICHMENT, *sys.argv[1:]]))
