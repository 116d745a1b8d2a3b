"""Kafka plumbing: how the worker and the commands reach the cluster, read and commit, produce,
keep tables, and encode our topics. Knows nothing of the stages or the worker service."""
