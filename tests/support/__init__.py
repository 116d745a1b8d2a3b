"""Test doubles that speak real protocols (a scripted OpenAI-compatible HTTP server)."""
