"""Promptfoo Python providers: stored answers offline, the runtime's own client live."""
