"""The worker service the stages run on: settings, the wiring every agent shares (decode,
publish, process), metrics, health, logs, and the records the flow produces."""
