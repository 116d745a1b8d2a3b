"""``python -m article_runtime.streams.commands``: the ``article-runtime`` command without its
installed script."""

from article_runtime.streams.commands import main

raise SystemExit(main())
