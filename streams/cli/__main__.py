"""``python -m streams.cli``: the ``article-runtime`` command without its installed script."""

from streams.cli import main

raise SystemExit(main())
