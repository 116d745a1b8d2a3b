"""``python -m article_runtime.streams.worker``: the worker process without its installed script."""

from article_runtime.streams.worker.main import main

main()
