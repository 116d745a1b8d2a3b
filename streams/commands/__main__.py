"""``python -m streams.commands``: the ``article-runtime`` command without its installed script."""

from streams.commands import main

raise SystemExit(main())
