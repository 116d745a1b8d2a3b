"""``python -m streams.worker``: the worker process without its installed script."""

from streams.worker.main import main

main()
