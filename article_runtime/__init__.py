"""article-runtime: raw news HTML in, a grounded, assembled article out.

The core is plain Python (no Kafka, no network): ``candidates`` turns HTML into the
candidate set, ``harness`` validates a proposal and assembles Markdown, ``deterministic``
proposes without a model. Stream wiring lives outside this package.
"""

__version__ = "0.1.0"
