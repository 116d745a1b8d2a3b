"""Benchmarks: scripts that print figures. Not tests; `make bench` runs them."""
