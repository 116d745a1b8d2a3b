"""Local development: a real Kafka broker from Maven Central's jars, a worker as a child
process, and ``make demo``."""
