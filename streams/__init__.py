"""Kafka wiring around the plain-Python core: contracts, codec, topics and a local broker.

Nothing in ``article_runtime`` imports this package: the core stays runnable without Kafka.
"""
