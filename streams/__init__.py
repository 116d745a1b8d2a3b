"""The stream processor around the plain-Python core, laid out by role.

- ``article_runtime.streams.kafka``: Kafka plumbing (connection, consumer and commits, producers,
  tables, codec, topics, admin, preflight, the in-flight window);
- ``article_runtime.streams.service``: what the worker's stages run on (settings, wiring, metrics,
  health, logs, the flow's records);
- ``article_runtime.streams.worker``: the composition root, above the agents it wires (the app, its
  web views, the worker process);
- ``article_runtime.streams.commands``: the ``article-runtime`` commands other teams run (publish,
  consume, redrive, follow);
- ``article_runtime.streams.local``: local development (a broker, a worker process, the demo).

Nothing in ``article_runtime`` imports this package: the core stays runnable without Kafka.
``tests/unit/test_import_graph.py`` holds the layers and checks there is no import circle.
"""
